//! A `$ref` and the keywords beside it, as one schema.
//!
//! JSON Schema 2019-09 and later apply a `$ref`'s target and its siblings together, as an
//! `allOf` of the two. Inlining the target into the node has to say both: where the two have
//! the same keyword they are combined (`properties` united, a property both define combined
//! the same way, `required` united, the stricter bound, `enum` and `type` intersected, the two
//! descriptions kept one after the other), and keywords that read others of their node
//! (`additionalProperties` reads `properties`, `items` reads `prefixItems`, `then` reads `if`
//! ...) are taken as a group. Where no one schema says both, the definition's keyword is kept
//! and the sibling's is dropped and reported (`refs/sibling-conflict`): the result is never
//! looser than the definition, nor unsatisfiable where the two together are not. An
//! annotation (`title`, `default`, ...) holds one value: the sibling's, the place's own, wins,
//! and the change says what the definition's was (`refs/sibling-override`).

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::model::{Holds, JsonObject};
use crate::schema::Cx;

/// Keywords that are read together: what one says depends on the others of its node.
const GROUPS: &[&[&str]] = &[
    &["properties", "patternProperties", "additionalProperties"],
    &["prefixItems", "items", "additionalItems"],
    &["contains", "minContains", "maxContains"],
    &["if", "then", "else"],
];

/// Draft 4's `exclusiveMaximum: true` reads `maximum` (and the same for the minimum).
const DRAFT4_BOUNDS: &[&[&str]] = &[&["maximum", "exclusiveMaximum"], &["minimum", "exclusiveMinimum"]];

/// Keywords whose subschemas evaluate properties or items (which `unevaluated*` reads).
fn applicator(key: &str) -> bool {
    matches!(
        key,
        "properties" | "patternProperties" | "additionalProperties" | "items" | "prefixItems" | "additionalItems" | "contains"
            | "allOf" | "anyOf" | "oneOf" | "if" | "then" | "else" | "dependentSchemas" | "$ref" | "$dynamicRef" | "not"
    )
}

fn unevaluated(key: &str) -> bool {
    key == "unevaluatedProperties" || key == "unevaluatedItems"
}

fn group_of(key: &str) -> Option<&'static [&'static str]> {
    GROUPS.iter().chain(DRAFT4_BOUNDS).copied().find(|g| g.contains(&key))
}

/// Whether `key`, beside a `$ref` whose target does not have it (`has` says which keys the
/// target has), would read or be read by one of the target's keywords once in its node: it
/// cannot then simply be added. The pass-through path ([`crate::fast`]) leaves such a node to
/// [`merge`].
pub(crate) fn interacts(key: &str, has: impl Fn(&str) -> bool) -> bool {
    // A `const` and an `enum` are weighed against each other (the `const` alone, or no value).
    if (key == "const" && has("enum")) || (key == "enum" && has("const")) {
        return true;
    }
    if let Some(g) = group_of(key) {
        if g.iter().any(|k| has(k)) {
            return true;
        }
    }
    // An `unevaluated*` beside the `$ref` reads what the target evaluates as well (the `$ref`
    // is in its node): it can join the target. The target's own reads only the target's.
    applicator(key) && (has("unevaluatedProperties") || has("unevaluatedItems"))
}

/// The description of a node that is a `$ref` with a `description` beside it (`own`) and whose
/// target has one too: `own` first (it says what this place is for), then the definition's;
/// one of them when it holds the other.
pub(crate) fn joined_description<'a>(own: &'a str, definition: &'a str) -> Cow<'a, str> {
    let (o, d) = (own.trim(), definition.trim());
    if d.is_empty() || o.contains(d) {
        Cow::Borrowed(own)
    } else if o.is_empty() || d.contains(o) {
        Cow::Borrowed(definition)
    } else {
        let mut s = String::with_capacity(o.len() + d.len() + 2);
        s.push_str(own.trim_end());
        s.push_str("\n\n");
        s.push_str(d);
        Cow::Owned(s)
    }
}

/// [`joined_description`] applied along a chain of references, innermost first: each hop's
/// `own` joined to the text so far as its `definition`. The same text, written once at the end
/// ([`JoinedDescriptions::text`]), and each question whether the text so far holds an `own`
/// answered without reading that text again once there have been a few ([`Holds`], of its bytes
/// in reverse since it grows at its start): joining thousands of hops one by one copied and
/// searched it at each.
pub(crate) struct JoinedDescriptions<'a> {
    /// The text: `lead`, the pieces (the last one first), `trail`. The pieces are the text
    /// trimmed, what [`joined_description`] reads of a `definition`; `len` their length.
    lead: Cow<'a, str>,
    pieces: Vec<Cow<'a, str>>,
    trail: Cow<'a, str>,
    len: usize,
    held: Holds,
    /// The text given, while the text is one as given (and borrowed).
    pub(crate) whole: Option<&'a str>,
}

impl<'a> JoinedDescriptions<'a> {
    /// The text of a `definition`.
    pub(crate) fn new(definition: Cow<'a, str>) -> Self {
        let mut joined = JoinedDescriptions { lead: "".into(), pieces: Vec::new(), trail: "".into(), len: 0, held: Holds::default(), whole: None };
        joined.restart(definition);
        joined
    }

    fn restart(&mut self, text: Cow<'a, str>) {
        let (start, core) = (text.len() - text.trim_start().len(), text.trim().len());
        let part = |r: std::ops::Range<usize>| match &text {
            Cow::Borrowed(t) => Cow::Borrowed(&t[r]),
            Cow::Owned(t) => Cow::Owned(t[r].to_owned()),
        };
        (self.lead, self.trail) = (part(0..start), part(start + core..text.len()));
        self.pieces = vec![part(start..start + core)];
        self.len = core;
        self.held = Holds::default();
        self.whole = match text {
            Cow::Borrowed(t) => Some(t),
            Cow::Owned(_) => None,
        };
    }

    /// The text so far, joined to `own` before it as [`joined_description`] joins them.
    pub(crate) fn join(&mut self, own: &'a str) {
        let o = own.trim();
        let within = |j: &Self| j.len <= o.len() && o.contains(Self::core_of(&j.pieces).as_str());
        if self.len == 0 || within(self) {
            self.restart(Cow::Borrowed(own));
        } else if !o.is_empty() && !self.held.holds(self.len, || Cow::Owned(Self::core_of(&self.pieces)), o, true) {
            self.lead = Cow::Borrowed(&own[..own.len() - own.trim_start().len()]);
            (self.trail, self.whole) = (Cow::Borrowed(""), None);
            self.pieces.extend([Cow::Borrowed("\n\n"), Cow::Borrowed(o)]);
            self.len += o.len() + 2;
            self.held.extend(b"\n\n", false, self.len);
            self.held.extend(o.as_bytes(), true, self.len);
        }
    }

    /// The pieces joined: the text without its `lead` and `trail`.
    fn core_of(pieces: &[Cow<'a, str>]) -> String {
        pieces.iter().rev().map(|p| &**p).collect()
    }

    /// The text.
    pub(crate) fn text(&self) -> String {
        let mut s = String::with_capacity(self.lead.len() + self.len + self.trail.len());
        s.push_str(&self.lead);
        self.pieces.iter().rev().for_each(|p| s.push_str(p));
        s.push_str(&self.trail);
        s
    }
}

/// `target` (a `$ref`'s expansion, its own references inlined) and `siblings` (the keywords
/// beside the `$ref`, theirs inlined too) as one schema; `cx` is at the node. The target's
/// keys keep their order, the siblings' new ones follow in theirs.
pub(crate) fn merge(target: JsonObject, siblings: JsonObject, cx: &mut Cx) -> JsonObject {
    let mut out = target;
    let mut overridden = String::new();
    let mut done: Vec<&'static [&'static str]> = Vec::new();
    // What the target had, before any sibling joins it: the groups it has keywords of, and
    // whether it reads what it evaluates (`unevaluated*`).
    let groups: Vec<&'static [&'static str]> = GROUPS
        .iter()
        .chain(DRAFT4_BOUNDS)
        .copied()
        .filter(|g| g.iter().any(|k| out.contains_key(*k)) && (!DRAFT4_BOUNDS.contains(g) || draft4(g, &out, &siblings)))
        .collect();
    let reads = out.contains_key("unevaluatedProperties") || out.contains_key("unevaluatedItems");
    // Whether the target has a `const`, an `enum`: a sibling's other one is weighed against it.
    let had = (out.contains_key("const"), out.contains_key("enum"));
    for (k, v) in &siblings {
        // A keyword read with others the target has: the sibling's group against the target's,
        // once. Into a target without any of them, each is added as it comes.
        if let Some(g) = group_of(k).filter(|g| groups.contains(g)) {
            if done.contains(&g) {
                continue;
            }
            done.push(g);
            merge_group(g, &mut out, &siblings, reads, cx);
            continue;
        }
        if out.get(k.as_str()) == Some(v) {
            continue;
        }
        if applicator(k) && reads {
            conflict(cx, &[k.as_str()], &siblings, "the definition's `unevaluated*` keywords read what it evaluates itself");
            continue;
        }
        let Some(mine) = out.get(k.as_str()) else {
            // A `const` beside an `enum` (or the other way round): the `const` alone when the
            // enum has its value.
            let other = match k.as_str() {
                "const" if had.1 => "enum",
                "enum" if had.0 => "const",
                _ => "",
            };
            match out.get(other).map(|o| if k == "const" { const_within(v, o) } else { const_within(o, v) }) {
                Some(Some(true)) => {
                    if k == "const" {
                        out.shift_remove("enum");
                        out.insert(k.clone(), v.clone());
                    }
                }
                Some(Some(false)) => conflict(cx, &[k.as_str()], &siblings, "the two allow no value in common"),
                _ => {
                    out.insert(k.clone(), v.clone());
                }
            }
            continue;
        };
        match combine(k, mine, v) {
            Combined::Value(c) => {
                out.insert(k.clone(), c);
            }
            Combined::Override => {
                if !overridden.is_empty() {
                    overridden.push_str(", ");
                }
                overridden.push('`');
                overridden.push_str(k);
                overridden.push_str("` (");
                crate::schema::push_short_json(&mut overridden, mine);
                overridden.push(')');
                out.insert(k.clone(), v.clone());
            }
            Combined::Disjoint => conflict(cx, &[k.as_str()], &siblings, "the two allow no value in common"),
            Combined::Conflict => conflict(cx, &[k.as_str()], &siblings, "no one keyword says both"),
        }
    }
    if !overridden.is_empty() {
        cx.change(
            "refs/sibling-override",
            format!("the definition's {overridden} replaced by the value beside its $ref (an annotation holds one value)"),
        );
    }
    out
}

/// Whether draft 4's boolean `exclusiveMaximum`/`exclusiveMinimum` is on either side: the bound
/// and its flag are then one group.
fn draft4(g: &[&str], a: &JsonObject, b: &JsonObject) -> bool {
    matches!(a.get(g[1]), Some(Value::Bool(_))) || matches!(b.get(g[1]), Some(Value::Bool(_)))
}

/// Reports the sibling keywords `keys` (with their values) as dropped: the definition's are kept.
fn conflict(cx: &mut Cx, keys: &[&str], siblings: &JsonObject, why: &str) {
    let mut listed = String::new();
    for k in keys {
        if let Some(v) = siblings.get(*k) {
            if !listed.is_empty() {
                listed.push_str(", ");
            }
            listed.push('`');
            listed.push_str(k);
            listed.push_str("`: ");
            crate::schema::push_short_json(&mut listed, v);
        }
    }
    cx.problem(
        "refs/sibling-conflict",
        format!("beside the $ref, {listed} cannot be combined with the definition ({why}): the definition's is kept, this dropped"),
    );
}

/// What [`combine`] makes of one keyword two schemas that both hold set to different values.
pub(crate) enum Combined {
    /// One value that says both.
    Value(Value),
    /// An annotation: the sibling's wins.
    Override,
    /// Two assertions that no value meets together.
    Disjoint,
    Conflict,
}

/// Whether `c`, a `const`, is among the values of `e`, an `enum` (`None` where `e` is no list):
/// then the two say the `const` alone; else no value meets both.
pub(crate) fn const_within(c: &Value, e: &Value) -> Option<bool> {
    e.as_array().map(|e| e.iter().any(|v| crate::model::same_value(v, c)))
}

/// One keyword that two schemas that both hold have, with different values (`mine` the first
/// one's): one value that says both where there is one (bounds tightened, `enum`s and `type`s
/// intersected, `required` united...). Serves `$ref` siblings ([`merge`], `theirs` beside the
/// `$ref`: an annotation's is the place's own and wins), `allOf` branches
/// ([`crate::schema::lower::merge_all_of`]) and a property two branches define
/// ([`crate::schema::lower::intersect`]), which keep the first annotation.
pub(crate) fn combine(key: &str, mine: &Value, theirs: &Value) -> Combined {
    let num = |v: &Value| v.as_f64();
    match (key, mine, theirs) {
        ("description", Value::String(d), Value::String(own)) => Combined::Value(Value::String(joined_description(own, d).into_owned())),
        ("required" | "examples", Value::Array(a), Value::Array(b)) => {
            let mut u = a.clone();
            for x in b {
                if !u.contains(x) {
                    u.push(x.clone());
                }
            }
            Combined::Value(Value::Array(u))
        }
        ("allOf", Value::Array(a), Value::Array(b)) => Combined::Value(Value::Array(a.iter().chain(b).cloned().collect())),
        ("enum", Value::Array(a), Value::Array(b)) => {
            let common: Vec<Value> = a.iter().filter(|x| b.iter().any(|y| crate::model::same_value(x, y))).cloned().collect();
            if common.is_empty() {
                Combined::Disjoint
            } else {
                Combined::Value(Value::Array(common))
            }
        }
        ("type", _, _) => match crate::schema::lower::common_types(mine, theirs) {
            Some(t) if !t.is_empty() => Combined::Value(if t.len() == 1 { t.into_iter().next().unwrap_or_default() } else { Value::Array(t) }),
            Some(_) => Combined::Disjoint,
            None => Combined::Conflict,
        },
        ("uniqueItems" | "deprecated" | "readOnly" | "writeOnly", Value::Bool(a), Value::Bool(b)) => Combined::Value(Value::Bool(*a || *b)),
        ("maxLength" | "maxItems" | "maxProperties" | "maximum" | "exclusiveMaximum" | "maxContains", _, _) => match (num(mine), num(theirs)) {
            (Some(a), Some(b)) => Combined::Value(if b < a { theirs.clone() } else { mine.clone() }),
            _ => Combined::Conflict,
        },
        ("minLength" | "minItems" | "minProperties" | "minimum" | "exclusiveMinimum" | "minContains", _, _) => match (num(mine), num(theirs)) {
            (Some(a), Some(b)) => Combined::Value(if b > a { theirs.clone() } else { mine.clone() }),
            _ => Combined::Conflict,
        },
        ("multipleOf", _, _) => match (num(mine), num(theirs)) {
            // The larger, when it is a multiple of the smaller.
            (Some(a), Some(b)) if a > 0.0 && b > 0.0 && ((a / b).fract() == 0.0 || (b / a).fract() == 0.0) => {
                Combined::Value(if a >= b { mine.clone() } else { theirs.clone() })
            }
            _ => Combined::Conflict,
        },
        ("$defs" | "definitions", Value::Object(a), Value::Object(b)) => {
            let mut u = a.clone();
            for (n, s) in b {
                u.insert(n.clone(), s.clone());
            }
            Combined::Value(Value::Object(u))
        }
        _ if crate::schema::is_annotation(key) || !assertion(key) => Combined::Override,
        _ => Combined::Conflict,
    }
}

/// Keywords that say which values are valid (and keywords this module does not combine).
fn assertion(key: &str) -> bool {
    applicator(key)
        || unevaluated(key)
        || matches!(
            key,
            "type" | "enum" | "const" | "format" | "pattern" | "propertyNames" | "dependentRequired" | "dependencies" | "required"
                | "contentMediaType" | "contentEncoding" | "contentSchema" | "nullable" | "multipleOf" | "uniqueItems"
                | "maxLength" | "minLength" | "maxItems" | "minItems" | "maxProperties" | "minProperties" | "maximum" | "minimum"
                | "exclusiveMaximum" | "exclusiveMinimum" | "minContains" | "maxContains" | "$dynamicRef"
        )
}

/// Two subschemas that both hold, as one (`cx` at the place).
fn both(mine: &Value, theirs: &Value, cx: &mut Cx) -> Value {
    match (mine, theirs) {
        (Value::Bool(true), _) => theirs.clone(),
        (_, Value::Bool(true)) => mine.clone(),
        (Value::Bool(false), _) | (_, Value::Bool(false)) => Value::Bool(false),
        (Value::Object(a), Value::Object(b)) if a == b => mine.clone(),
        (Value::Object(a), Value::Object(b)) => Value::Object(merge(a.clone(), b.clone(), cx)),
        _ => mine.clone(),
    }
}

/// The sibling's keywords of group `g` combined with the target's (in `out`, which has some).
/// `reads`: the target has `unevaluated*` keywords.
fn merge_group(g: &'static [&'static str], out: &mut JsonObject, siblings: &JsonObject, reads: bool, cx: &mut Cx) {
    let theirs: Vec<&str> = g.iter().copied().filter(|k| siblings.contains_key(*k)).collect();
    if reads && theirs.iter().any(|k| applicator(k)) {
        return conflict(cx, &theirs, siblings, "the definition's `unevaluated*` keywords read what it evaluates itself");
    }
    if g.iter().all(|k| out.get(*k) == siblings.get(*k)) {
        return;
    }
    let merged = match g[0] {
        "properties" => merge_objects(out, siblings, cx),
        "prefixItems" => merge_arrays(out, siblings, cx),
        _ => None,
    };
    match merged {
        Some(values) => {
            for (k, v) in values {
                match v {
                    // A keyword the two no longer need (see `merge_arrays`).
                    Value::Null => {
                        out.shift_remove(k);
                    }
                    v => {
                        out.insert(k.to_owned(), v);
                    }
                }
            }
        }
        None => conflict(cx, &theirs, siblings, "no one node says both"),
    }
}

/// Whether an `additionalProperties` (or `items`) value leaves what it applies to unconstrained.
fn open(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Bool(true)) => true,
        Some(Value::Object(o)) => o.is_empty(),
        _ => false,
    }
}

/// `properties` and `additionalProperties` of both sides as one: a property only one side names
/// must not be one the other side closes out. `None` when that cannot be said in one node.
fn merge_objects(out: &JsonObject, siblings: &JsonObject, cx: &mut Cx) -> Option<Vec<(&'static str, Value)>> {
    if out.contains_key("patternProperties") || siblings.contains_key("patternProperties") {
        return None;
    }
    let empty = Map::new();
    let props = |o: &JsonObject| -> Option<JsonObject> {
        match o.get("properties") {
            None => Some(empty.clone()),
            Some(Value::Object(p)) => Some(p.clone()),
            _ => None,
        }
    };
    let (mut mine, theirs) = (props(out)?, props(siblings)?);
    let (my_ap, their_ap) = (out.get("additionalProperties"), siblings.get("additionalProperties"));
    if (!open(my_ap) && theirs.keys().any(|n| !mine.contains_key(n))) || (!open(their_ap) && mine.keys().any(|n| !theirs.contains_key(n))) {
        return None;
    }
    cx.at("properties", |cx| {
        for (n, s) in &theirs {
            let joined = match mine.get(n) {
                Some(m) if m != s => cx.at(n, |cx| Ok(both(m, s, cx)))?,
                Some(_) => continue,
                None => s.clone(),
            };
            mine.insert(n.clone(), joined);
        }
        Ok(())
    })
    .ok()?;
    let mut values = Vec::new();
    if out.contains_key("properties") || siblings.contains_key("properties") {
        values.push(("properties", Value::Object(mine)));
    }
    match (my_ap, their_ap) {
        (Some(a), Some(b)) => values.push(("additionalProperties", cx.at("additionalProperties", |cx| Ok(both(a, b, cx))).ok()?)),
        (None, Some(b)) => values.push(("additionalProperties", b.clone())),
        _ => {}
    }
    Some(values)
}

/// `prefixItems` and `items` of both sides as one: item `i` holds to what each side says of
/// it (its own `prefixItems` entry, else its `items`). `None` for draft 4's tuples.
fn merge_arrays(out: &JsonObject, siblings: &JsonObject, cx: &mut Cx) -> Option<Vec<(&'static str, Value)>> {
    let parts = |o: &JsonObject| -> Option<(Vec<Value>, Option<Value>)> {
        if o.contains_key("additionalItems") {
            return None;
        }
        let prefix = match o.get("prefixItems") {
            None => Vec::new(),
            Some(Value::Array(p)) => p.clone(),
            _ => return None,
        };
        match o.get("items") {
            Some(Value::Array(_)) => None,
            items => Some((prefix, items.cloned())),
        }
    };
    let ((mp, mi), (tp, ti)) = (parts(out)?, parts(siblings)?);
    let n = mp.len().max(tp.len());
    let mut prefix = Vec::with_capacity(n);
    cx.at("prefixItems", |cx| {
        for i in 0..n {
            let (a, b) = (mp.get(i).or(mi.as_ref()), tp.get(i).or(ti.as_ref()));
            prefix.push(match (a, b) {
                (Some(a), Some(b)) => cx.at(&i.to_string(), |cx| Ok(both(a, b, cx)))?,
                (Some(x), None) | (None, Some(x)) => x.clone(),
                (None, None) => Value::Bool(true),
            });
        }
        Ok(())
    })
    .ok()?;
    let mut items = match (mi, ti) {
        (Some(a), Some(b)) => Some(cx.at("items", |cx| Ok(both(&a, &b, cx))).ok()?),
        (Some(x), None) | (None, Some(x)) => Some(x),
        (None, None) => None,
    };
    // An item that may not be there ends the tuple: nothing after it may be either.
    if let Some(end) = prefix.iter().position(|p| *p == Value::Bool(false)) {
        prefix.truncate(end);
        items = Some(Value::Bool(false));
    }
    let mut values = Vec::new();
    if !prefix.is_empty() {
        values.push(("prefixItems", Value::Array(prefix)));
    } else if n > 0 {
        // `prefixItems` may not be empty: none, where the first item may not be there.
        values.push(("prefixItems", Value::Null));
    }
    values.extend(items.map(|i| ("items", i)));
    Some(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Limits;
    use serde_json::json;

    fn run(target: Value, siblings: Value) -> (Value, Cx) {
        let mut cx = Cx::new(Limits::default());
        let (Value::Object(t), Value::Object(s)) = (target, siblings) else { panic!() };
        (Value::Object(merge(t, s, &mut cx)), cx)
    }

    #[test]
    fn properties_and_required_unite_and_bounds_tighten() {
        let (out, cx) = run(
            json!({"type":"object","properties":{"id":{"type":"integer"},"email":{"type":"string","maxLength":50}},"required":["id","email"]}),
            json!({"properties":{"nickname":{"type":"string"},"email":{"maxLength":80,"description":"work"}},"required":["nickname"]}),
        );
        assert_eq!(
            out,
            json!({"type":"object","properties":{"id":{"type":"integer"},"email":{"type":"string","maxLength":50,"description":"work"},"nickname":{"type":"string"}},
                "required":["id","email","nickname"]})
        );
        assert!(cx.changes.is_empty() && cx.problems.is_empty(), "{:?} {:?}", cx.changes, cx.problems);
        let (out, _) = run(json!({"type":"string","maxLength":6,"minLength":2}), json!({"maxLength":20,"minLength":4}));
        assert_eq!(out, json!({"type":"string","maxLength":6,"minLength":4}));
    }

    #[test]
    fn descriptions_are_both_kept_and_annotations_overridden_with_a_change() {
        let (out, cx) = run(json!({"type":"string","description":"An ISO date.","title":"ISODate"}), json!({"description":"When it starts","title":"Start"}));
        assert_eq!(out, json!({"type":"string","description":"When it starts\n\nAn ISO date.","title":"Start"}));
        assert_eq!(cx.changes.len(), 1);
        assert_eq!(cx.changes[0].rule, "refs/sibling-override");
        assert!(cx.changes[0].message.contains("`title` (\"ISODate\")"), "{}", cx.changes[0].message);
        assert_eq!(joined_description("a b", "b"), "a b");
        assert_eq!(joined_description("b", "a b"), "a b");
    }

    /// Descriptions joined along a chain ([`JoinedDescriptions`]) are those [`joined_description`]
    /// gives joined one by one: the same text, the same string given where it is one, for
    /// descriptions that hold one another, in part or across the joins, blank, and with
    /// white space around them.
    #[test]
    fn descriptions_joined_along_a_chain_are_joined_one_by_one() {
        let words = ["a", "b", " a ", "a\n\nb", "b\n\na", "", "  ", "ab", "a b", "\tb ", "é", "a\n", "\nb", "ba\n\nab"];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m as u64) as usize
        };
        for _ in 0..3_000 {
            let first = words[next(words.len())];
            let owns: Vec<&str> = (0..next(8)).map(|_| words[next(words.len())]).collect();
            let mut joined = JoinedDescriptions::new(Cow::Borrowed(first));
            let mut want = Cow::Borrowed(first);
            for own in &owns {
                joined.join(own);
                want = match joined_description(own, &want) {
                    Cow::Borrowed(d) if std::ptr::eq(d, *own) => Cow::Borrowed(*own),
                    Cow::Borrowed(_) => want,
                    Cow::Owned(d) => Cow::Owned(d),
                };
                assert_eq!(joined.text(), want, "{first:?} then {owns:?}");
                let given = match &want {
                    Cow::Borrowed(w) => Some(*w),
                    Cow::Owned(_) => None,
                };
                assert!(joined.whole.is_some_and(|w| given.is_some_and(|g| std::ptr::eq(w, g))) == given.is_some(), "{first:?} then {owns:?}");
            }
        }
    }

    #[test]
    fn what_cannot_be_combined_keeps_the_definition_and_is_reported() {
        // Disjoint types: unsatisfiable together, the definition's kept.
        let (out, cx) = run(json!({"type":"string","format":"date","pattern":"^a"}), json!({"type":"integer","format":"uri","pattern":"^a"}));
        assert_eq!(out, json!({"type":"string","format":"date","pattern":"^a"}));
        let rules: Vec<&str> = cx.problems.iter().map(|d| d.rule).collect();
        assert_eq!(rules, ["refs/sibling-conflict", "refs/sibling-conflict"], "{:?}", cx.problems);
        assert!(cx.problems[0].message.contains("`type`: \"integer\""));
        // A closed definition cannot take a property it does not name.
        let (out, cx) = run(
            json!({"type":"object","properties":{"a":{}},"additionalProperties":false}),
            json!({"properties":{"b":{"type":"string"}}}),
        );
        assert_eq!(out, json!({"type":"object","properties":{"a":{}},"additionalProperties":false}));
        assert_eq!(cx.problems.len(), 1);
        // An open one can; the closing sibling closes over both.
        let (out, cx) = run(json!({"type":"object","properties":{"a":{}}}), json!({"properties":{"a":{},"b":{}},"additionalProperties":false}));
        assert_eq!(out, json!({"type":"object","properties":{"a":{},"b":{}},"additionalProperties":false}));
        assert!(cx.problems.is_empty());
    }

    #[test]
    fn tuples_combine_item_by_item() {
        let (out, cx) = run(
            json!({"prefixItems":[{"type":"string"},{"type":"number"}]}),
            json!({"prefixItems":[{"maxLength":3}],"items":{"type":"number","maximum":9}}),
        );
        assert_eq!(out, json!({"prefixItems":[{"type":"string","maxLength":3},{"type":"number","maximum":9}],"items":{"type":"number","maximum":9}}));
        assert!(cx.problems.is_empty());
    }

    /// Through every provider that inlines: the definition's properties, required names and
    /// bound stay (probe F1), with no false "no such property", on both paths.
    #[test]
    fn a_ref_with_siblings_keeps_its_definition_everywhere() {
        use crate::convert::{convert, convert_json, ConvertOptions};
        use crate::providers::{GeminiMode, Provider};
        let schema = json!({"type": "object", "properties": {
            "user": {"$ref": "#/$defs/User", "properties": {"nickname": {"type": "string"}}, "required": ["nickname"]},
            "code": {"$ref": "#/$defs/Code", "maxLength": 20},
            "owner": {"$ref": "#/$defs/User", "properties": {"nickname": {"type": "string"}}}},
            "required": ["user", "code"], "$defs": {
            "User": {"type": "object", "properties": {"id": {"type": "integer"}, "email": {"type": "string"}}, "required": ["id", "email"]},
            "Code": {"type": "string", "maxLength": 6, "pattern": "^[A-Z]+$"}}});
        let tools = json!([{"name": "t", "inputSchema": schema}]);
        let mut cases = Vec::new();
        for (provider, strict, mode) in [
            (Provider::Gemini, false, GeminiMode::Parameters),
            (Provider::Vertex, false, GeminiMode::Parameters),
            (Provider::Gemini, false, GeminiMode::JsonSchema),
            (Provider::OpenAi, true, GeminiMode::Parameters),
            (Provider::Anthropic, true, GeminiMode::Parameters),
            (Provider::Bedrock, true, GeminiMode::Parameters),
        ] {
            let mut opts = ConvertOptions::default();
            opts.schema.strict = strict;
            opts.schema.gemini_mode = mode;
            cases.push((provider, opts));
        }
        for (provider, opts) in cases {
            let out = convert(tools.clone(), provider, &opts).unwrap();
            assert_eq!(convert_json(&tools.to_string(), provider, &opts).unwrap(), out.tools.to_string(), "{provider:?}");
            let text = out.tools.to_string().to_lowercase();
            let t = &out.tools[0];
            let params = [&t["functionDeclarations"][0]["parameters"], &t["functionDeclarations"][0]["parametersJsonSchema"], &t["function"]["parameters"], &t["input_schema"], &t["toolSpec"]["inputSchema"]["json"]]
                .into_iter()
                .find(|p| p.is_object())
                .unwrap()
                .clone();
            for p in ["user", "owner"] {
                let props = params["properties"][p]["properties"].as_object().unwrap_or_else(|| panic!("{provider:?}: {text}"));
                assert!(props.contains_key("id") && props.contains_key("email") && props.contains_key("nickname"), "{provider:?} {p}: {text}");
                let required = params["properties"][p]["required"].as_array().unwrap();
                assert!(required.iter().all(|r| props.contains_key(r.as_str().unwrap())), "{provider:?} {p}: {text}");
            }
            let user_required = &params["properties"]["user"]["required"];
            for name in ["id", "email", "nickname"] {
                assert!(user_required.as_array().unwrap().iter().any(|r| r == name), "{provider:?}: {user_required}");
            }
            let code = params["properties"]["code"].to_string();
            assert!(code.contains("6") && !code.contains("20"), "{provider:?}: {code}");
            let report = &out.report.tools[0];
            assert!(!report.changes.iter().chain(&report.problems).any(|d| d.rule == "schema/required-missing-property"), "{provider:?}: {report:?}");
        }
    }

    /// A `const` beside the target's `enum` (or the other way round) is the `const` alone when
    /// the enum has it, and allows no value when it does not (the definition's kept).
    #[test]
    fn a_const_beside_an_enum_is_the_const_alone() {
        let (out, cx) = run(json!({"type":"string","enum":["a","b"]}), json!({"const":"b"}));
        assert_eq!(out, json!({"type":"string","const":"b"}));
        assert!(cx.problems.is_empty());
        let (out, cx) = run(json!({"const":"a"}), json!({"enum":["a","b"]}));
        assert_eq!(out, json!({"const":"a"}));
        assert!(cx.problems.is_empty());
        let (out, cx) = run(json!({"type":"string","enum":["a","b"]}), json!({"const":"c"}));
        assert_eq!(out, json!({"type":"string","enum":["a","b"]}));
        assert_eq!(cx.problems.len(), 1);
        assert!(cx.problems[0].message.contains("no value in common"), "{:?}", cx.problems);
        // Both beside the `$ref`, none in the target: as written.
        let (out, _) = run(json!({"type":"string"}), json!({"enum":["a"],"const":"a"}));
        assert_eq!(out, json!({"type":"string","enum":["a"],"const":"a"}));
        // Numbers are equal by value (`2.0` is `2`, as a Python server writes it), in a `const` and in `enum`s.
        let (out, cx) = run(json!({"enum":[1,2]}), json!({"const":2.0}));
        assert_eq!(out, json!({"const":2.0}));
        assert!(cx.problems.is_empty(), "{:?}", cx.problems);
        assert!(matches!(combine("enum", &json!([1, 2, 3]), &json!([2.0, 3.0])), Combined::Value(v) if v == json!([2, 3])));
    }

    #[test]
    fn an_item_that_may_not_be_there_ends_the_tuple() {
        let (out, _) = run(json!({"prefixItems":[{"type":"string"},{"type":"number"}]}), json!({"prefixItems":[{"maxLength":3}],"items":false}));
        assert_eq!(out, json!({"prefixItems":[{"type":"string","maxLength":3}],"items":false}));
        let (out, _) = run(json!({"prefixItems":[{"type":"string"}]}), json!({"items":false}));
        assert_eq!(out, json!({"items":false}));
    }

    #[test]
    fn keywords_read_together_are_a_group() {
        assert!(interacts("additionalProperties", |k| k == "properties"));
        assert!(interacts("items", |k| k == "prefixItems"));
        assert!(interacts("properties", |k| k == "unevaluatedProperties"));
        assert!(!interacts("properties", |k| k == "type"));
        assert!(!interacts("description", |_| true));
        assert!(interacts("const", |k| k == "enum") && interacts("enum", |k| k == "const"));
    }
}
