//! Rewrites that several providers share.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::model::{add_names, object, string, JsonObject, Keyed as _, Holds, NameIndex, NameSet, Put as _, Take as _};
use crate::schema::domain::{self, Domain};
use crate::schema::siblings::{combine, const_within, Combined};
use crate::schema::{append_description, fix_required, refs, short_json, Cx};
use crate::text::{self, Owned as _};

/// The `type` of a node as a list (`"string"` → `["string"]`, absent → `[]`).
pub fn types_of(obj: &JsonObject) -> Vec<&str> {
    match obj.find("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether the node is (or may be) an object.
pub fn is_object_node(obj: &JsonObject) -> bool {
    let ts = types_of(obj);
    ts.contains(&"object") || (ts.is_empty() && obj.has("properties"))
}

/// Whether the node is (or may be) an array.
pub fn is_array_node(obj: &JsonObject) -> bool {
    types_of(obj).contains(&"array")
}

/// Whether two schemas differ at most in the values they allow (`enum`, `const`) and their
/// `description`: one definition with the values united says both.
fn same_but_values_and_description(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            let keep = |k: &&String| !matches!(k.as_str(), "enum" | "const" | "description");
            a.keys().filter(keep).count() == b.keys().filter(keep).count()
                && a.iter().filter(|(k, _)| keep(k)).all(|(k, v)| b.get(k) == Some(v))
        }
        _ => a == b,
    }
}

/// The values a schema is limited to (its `enum`, or its `const` as one value), if any.
fn allowed_values(o: &JsonObject) -> Option<Vec<Value>> {
    match (o.find("enum"), o.find("const")) {
        (Some(Value::Array(e)), _) => Some(e.clone()),
        (_, Some(c)) => Some(vec![c.clone()]),
        _ => None,
    }
}

/// Two definitions of a property in branches of a root `anyOf`/`oneOf` that differ at most in
/// their values and descriptions ([`same_but_values_and_description`]): the first, allowing
/// the values of both (discriminators `kind: "a"` / `kind: "b"` become `enum: ["a", "b"]`; no
/// limit where either has none) and keeping both descriptions.
fn unite_values(first: &Value, other: &Value) -> Value {
    let (Value::Object(f), Value::Object(o)) = (first, other) else { return first.clone() };
    let mut merged = f.clone();
    let values = match (allowed_values(f), allowed_values(o)) {
        (Some(mut a), Some(b)) => {
            for v in b {
                if !a.contains(&v) {
                    a.push(v);
                }
            }
            Some(a)
        }
        _ => None,
    };
    let had_enum = merged.has("enum");
    merged.take("const");
    match values {
        Some(values) if had_enum => {
            if let Some(e) = merged.find_mut("enum") {
                *e = Value::Array(values);
            }
        }
        Some(values) => {
            merged.put("enum", Value::Array(values));
        }
        None => {
            merged.take("enum");
        }
    }
    join_description(&mut merged, o);
    Value::Object(merged)
}

/// `other`'s description joined to `into`'s (" / "), unless it says nothing new.
fn join_description(into: &mut JsonObject, other: &JsonObject) {
    if let Some(Value::String(nd)) = other.find("description") {
        match into.find_mut("description") {
            Some(Value::String(d)) if !d.contains(nd.trim()) => {
                let joined = format!("{} / {}", d.trim_end(), nd.trim());
                *d = joined;
            }
            None => {
                into.put("description", string(nd));
            }
            _ => {}
        }
    }
}

/// A hash of a JSON value that equal values share (an object's keys in any order).
fn value_hash(v: &Value) -> u64 {
    use std::hash::{Hash as _, Hasher as _};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    match v {
        Value::Object(o) => {
            // Order-independent: the sum of the entries' hashes.
            let sum = o.iter().fold(0u64, |acc, (k, x)| {
                let mut e = std::collections::hash_map::DefaultHasher::new();
                k.hash(&mut e);
                value_hash(x).hash(&mut e);
                acc.wrapping_add(e.finish())
            });
            (0u8, sum).hash(&mut h);
        }
        Value::Array(a) => {
            1u8.hash(&mut h);
            for x in a {
                value_hash(x).hash(&mut h);
            }
        }
        // Its JSON, as `Display` writes it (`text::to_string`: serde_json's `Display` would bring its
        // serializer for `Value`, compact and pretty, into the module for this).
        other => (2u8, crate::text::to_string(other)).hash(&mut h),
    }
    h.finish()
}

/// A property that branches of a root `anyOf`/`oneOf` define differently: an `anyOf` of the
/// distinct definitions (`first` is that `anyOf` already when `alternated`).
fn alternatives_of(first: &Value, other: &Value, alternated: bool) -> Value {
    let mut branches = match (alternated, first) {
        (true, Value::Object(f)) => match f.find("anyOf") {
            Some(Value::Array(b)) => b.clone(),
            _ => vec![first.clone()],
        },
        _ => vec![first.clone()],
    };
    if !branches.contains(other) {
        branches.push(other.clone());
    }
    object([("anyOf", Value::Array(branches))])
}

/// The types both `a` and `b` allow (`integer` is a `number`: the two meet at `integer`), or
/// `None` when one is not a type name or a list of them.
pub(crate) fn common_types(a: &Value, b: &Value) -> Option<Vec<Value>> {
    let names = |t: &Value| -> Option<Vec<Value>> {
        match t {
            Value::String(_) => Some(vec![t.clone()]),
            Value::Array(ts) if ts.iter().all(Value::is_string) => Some(ts.clone()),
            _ => None,
        }
    };
    let (at, bt) = (names(a)?, names(b)?);
    let mut common: Vec<Value> = Vec::new();
    for t in &at {
        let met = if bt.contains(t) {
            t.clone()
        } else if (*t == "integer" && bt.iter().any(|o| *o == "number")) || (*t == "number" && bt.iter().any(|o| *o == "integer")) {
            string("integer")
        } else {
            continue;
        };
        if !common.contains(&met) {
            common.push(met);
        }
    }
    Some(common)
}

/// A property that branches of a root `allOf` (or the root and a branch) both define: one
/// schema that says both. Keywords only one of them has are united, `properties` intersected
/// name by name, `required` united, `enum`s and `type` lists intersected, descriptions joined;
/// where the two set a keyword to different values that cannot be combined so, the two
/// definitions under `allOf` (and `true` as the second value). Booleans: `true` is the other,
/// `false` stays.
pub(crate) fn intersect(a: &Value, b: &Value) -> (Value, bool) {
    let (ao, bo) = match (a, b) {
        (Value::Bool(true), _) => return (b.clone(), false),
        (_, Value::Bool(true)) => return (a.clone(), false),
        (Value::Bool(false), _) | (_, Value::Bool(false)) => return (Value::Bool(false), false),
        (Value::Object(ao), Value::Object(bo)) => (ao, bo),
        _ => return (object([("allOf", Value::Array(vec![a.clone(), b.clone()]))]), true),
    };
    // Draft 4's boolean exclusive bounds go with their bound: as numbers first, so each combines.
    if crate::schema::has_draft4_exclusive(ao) || crate::schema::has_draft4_exclusive(bo) {
        let (mut ao, mut bo) = (ao.clone(), bo.clone());
        crate::schema::draft4_exclusives(&mut ao);
        crate::schema::draft4_exclusives(&mut bo);
        return intersect(&Value::Object(ao), &Value::Object(bo));
    }
    let both = || (object([("allOf", Value::Array(vec![a.clone(), b.clone()]))]), true);
    let mut merged = ao.clone();
    let mut nested = false;
    for (k, v) in bo {
        let Some(mine) = merged.get_mut(k) else {
            merged.insert(k.clone(), v.clone());
            continue;
        };
        if mine == v {
            continue;
        }
        match (k.as_str(), &mut *mine, v) {
            ("properties", Value::Object(mp), Value::Object(bp)) => {
                for (name, s) in bp {
                    let joined = match mp.get(name) {
                        Some(m) if m != s => {
                            let (j, n) = intersect(m, s);
                            nested |= n;
                            j
                        }
                        Some(_) => continue,
                        None => s.clone(),
                    };
                    mp.insert(name.clone(), joined);
                }
            }
            ("description", Value::String(d), Value::String(nd)) => {
                if !d.contains(nd.trim()) {
                    let joined = format!("{} / {}", d.trim_end(), nd.trim());
                    *d = joined;
                }
            }
            ("title", _, _) => {}
            // Every item holds to both (no tuple beside either, whose items it would not cover).
            ("items", Value::Object(_) | Value::Bool(_), Value::Object(_) | Value::Bool(_)) if !ao.has("prefixItems") && !bo.has("prefixItems") => {
                let (j, n) = intersect(mine, v);
                nested |= n;
                *mine = j;
            }
            // Bounds tightened, `enum`s and `type`s intersected, `required` united: as a
            // `$ref`'s siblings join its target. No common value (an empty `enum` would say
            // nothing can be given, silently), or values that no one keyword says: both.
            _ => match combine(k, mine, v) {
                Combined::Value(c) => *mine = c,
                Combined::Override | Combined::Disjoint | Combined::Conflict => return both(),
            },
        }
    }
    if !settle_const(&mut merged) {
        return both();
    }
    (Value::Object(merged), nested)
}

/// A `const` beside an `enum` in a schema merged from two: the `const` alone where the enum has
/// its value (`true`); `false` where no value meets both (both are left).
fn settle_const(o: &mut JsonObject) -> bool {
    let (Some(c), Some(e)) = (o.get("const"), o.get("enum")) else { return true };
    match const_within(c, e) {
        Some(true) => {
            o.shift_remove("enum");
            true
        }
        Some(false) => false,
        None => true,
    }
}

/// Whether two definitions of a property both limit it to an `enum` and the two share no value.
fn disjoint_enums(a: &Value, b: &Value) -> bool {
    match (a.find("enum"), b.find("enum")) {
        (Some(Value::Array(x)), Some(Value::Array(y))) => !x.iter().any(|v| y.iter().any(|w| crate::model::same_value(v, w))),
        _ => false,
    }
}

/// The values a schema is limited to by its own `enum` and `const` and those of its `allOf`
/// branches (all of which hold), intersected: `None` where nothing limits them.
fn values_allowed(schema: &Value, depth: usize) -> Option<Vec<Value>> {
    let Value::Object(o) = schema else { return None };
    let mut sets: Vec<Vec<Value>> = Vec::new();
    if let Some(Value::Array(e)) = o.find("enum") {
        sets.push(e.clone());
    }
    if let Some(c) = o.find("const") {
        sets.push(vec![c.clone()]);
    }
    if let (Some(Value::Array(branches)), true) = (o.find("allOf"), depth < 16) {
        sets.extend(branches.iter().filter_map(|b| values_allowed(b, depth + 1)));
    }
    let mut sets = sets.into_iter();
    let first = sets.next()?;
    Some(sets.fold(first, |mut all, set| {
        all.retain(|v| set.iter().any(|w| crate::model::same_value(v, w)));
        all
    }))
}

/// The keywords of a node that limit its values, for messages: `` `type`: "integer", `minimum`: 10 ``.
fn limits_of(o: &JsonObject) -> String {
    let mut out = String::new();
    for (k, v) in o {
        let limits = k == "type" || k == "const" || (k == "enum" && v.as_array().is_some_and(|e| e.len() <= 8))
            || (v.is_number() && matches!(domain::word(k.as_bytes(), crate::schema::walk::head(k.as_bytes())), domain::Word::Bound(_)));
        if limits {
            if !out.is_empty() {
                out.push_str(", ");
            }
            out.push('`');
            out.push_str(k);
            out.push_str("`: ");
            crate::schema::push_short_json(&mut out, v);
        }
    }
    out
}

/// The types of a `type` value as [`domain`] bits: any for no list of names (or an empty one).
pub(crate) fn type_bits(t: &Value) -> u8 {
    match t {
        Value::String(t) => domain::type_bits(t),
        Value::Array(ts) if !ts.is_empty() => ts.iter().map(|t| t.as_str().map_or(domain::ANY, domain::type_bits)).fold(0, |a, b| a | b),
        _ => domain::ANY,
    }
}

/// What one pass over a node's keys finds of what limits its values.
struct Limited<'v> {
    /// Its `type` and bounds.
    domain: Domain,
    /// Its `enum` and `const`.
    values: (Option<&'v Value>, Option<&'v Value>),
    /// Its `allOf` and `required`.
    all_of: Option<&'v Value>,
    required: Option<&'v Value>,
}

/// What a node's keys say of its values (keywords by length and first eight bytes, as the
/// pass-through path reads them: one pass, no lookup per keyword).
fn limited(o: &JsonObject) -> Limited<'_> {
    let mut l = Limited { domain: Domain::ANY, values: (None, None), all_of: None, required: None };
    // OpenAPI's `nullable: true` adds null to the `type` (Gemini reads it so).
    let (mut ty, mut nullable) = (None, false);
    for (k, v) in o {
        let key = k.as_bytes();
        match domain::word(key, crate::schema::walk::head(key)) {
            domain::Word::Enum => l.values.0 = Some(v),
            domain::Word::Const => l.values.1 = Some(v),
            domain::Word::Bound(which) => {
                if let Value::Number(n) = v {
                    l.domain.bound(which, n);
                }
            }
            domain::Word::Other => match key {
                b"type" => ty = Some(v),
                b"nullable" => nullable = v == &Value::Bool(true),
                b"allOf" => l.all_of = Some(v),
                b"required" => l.required = Some(v),
                _ => {}
            },
        }
    }
    if let Some(t) = ty {
        l.domain.only(type_bits(t) | if nullable { domain::NULL } else { 0 });
    }
    l
}

/// What a node's `type` and bounds (`own`, from [`limited`]) and those of its `allOf` branches
/// (theirs too) leave a value.
fn domain_with_all_of(own: Domain, all_of: Option<&Value>, depth: usize) -> Domain {
    let mut d = own;
    if let (Some(Value::Array(branches)), true) = (all_of, depth < 16) {
        for b in branches {
            if let Value::Object(b) = b {
                let l = limited(b);
                d.meet(&domain_with_all_of(l.domain, l.all_of, depth + 1));
            }
        }
    }
    d
}

/// The definitions of each property that a node and its `allOf` branches (theirs too) give,
/// with where each stands (a JSON pointer below the node).
fn definitions_under_all_of<'v>(o: &'v JsonObject, at: &str, defs: &mut Vec<(&'v str, String, &'v Value)>, depth: usize) {
    if let Some(Value::Object(props)) = o.find("properties") {
        for (name, s) in props {
            defs.push((name, format!("{at}/properties/{}", name.replace('~', "~0").replace('/', "~1")), s));
        }
    }
    if let (Some(Value::Array(branches)), true) = (o.find("allOf"), depth < 16) {
        for (i, b) in branches.iter().enumerate() {
            if let Value::Object(b) = b {
                definitions_under_all_of(b, &format!("{at}/allOf/{i}"), defs, depth + 1);
            }
        }
    }
}

/// Reports every place that allows no value, which a tool's arguments can then never give
/// (`schema/disjoint-values`): a node whose `enum` is empty; whose `enum`/`const` values fit
/// none of its types or bounds; whose bounds leave none of its types a value (`minimum` above
/// `maximum`, `minLength` above `maxLength`...); a required property whose schema is `false`;
/// below the root, the same with the node's `allOf` branches holding too, and a property that
/// a node and its `allOf` branches define with enums that share no value (the root's own
/// `allOf` is merged, and reported there, by [`merge_root_combinators`]). Not below the
/// keywords where a schema that takes nothing is a way to say "none" (`not`, `if`/`then`/
/// `else`, `additionalProperties`, `propertyNames`...). Nothing is changed: no provider can
/// say "no value" better than the schema does.
pub fn report_disjoint_values(schema: &Value, cx: &mut Cx) {
    disjoint_values_at(schema, schema, cx, 0);
}

/// Whether [`report_disjoint_values`] reports anything at `schema` itself, as a subschema (the
/// pass-through path, which reports nothing, leaves such a schema to the general path; it
/// visits every subschema itself, so the ones below are not looked at here).
pub(crate) fn has_disjoint_values(schema: &Value) -> bool {
    let Value::Object(o) = schema else { return false };
    let mut cx = Cx::new(crate::schema::Limits::default());
    disjoint_values_here(schema, o, false, &mut cx);
    !cx.problems.is_empty()
}

/// Subschema keywords under which a schema that allows nothing is a way to say "none" (or
/// "never"), not a mistake, or is harmless (one alternative of a union the others still
/// answer): not looked into. A definition is looked at where a reference uses it.
fn says_none_below(key: &str) -> bool {
    matches!(
        key,
        "not" | "if" | "then" | "else" | "additionalProperties" | "additionalItems" | "unevaluatedProperties" | "unevaluatedItems"
            | "propertyNames" | "patternProperties" | "dependentSchemas" | "anyOf" | "oneOf" | "$defs" | "definitions"
    )
}

fn disjoint_values_at(schema: &Value, root: &Value, cx: &mut Cx, depth: usize) {
    let Value::Object(o) = schema else { return };
    if depth > cx.limits.depth_limit() {
        return;
    }
    disjoint_values_here(schema, o, cx.path().is_empty(), cx);
    // A local reference: its definition's own values, said where it is used (not below it: a
    // definition's insides are said where their references stand, and a cycle ends here).
    if let Some(Value::String(r)) = o.find("$ref") {
        if let Some(target @ Value::Object(t)) = crate::schema::refs::lookup(root, r) {
            disjoint_values_here(target, t, false, cx);
        }
    }
    for (key, value) in o {
        let slot = crate::schema::walk::slot(key, value);
        if slot == crate::schema::walk::Slot::None || says_none_below(key) {
            continue;
        }
        match (slot, value) {
            (crate::schema::walk::Slot::Map, Value::Object(map)) => {
                for (name, sub) in map {
                    cx.at(key, |cx| cx.at(name, |cx| {
                        disjoint_values_at(sub, root, cx, depth + 1);
                        Ok(())
                    }))
                    .ok();
                }
            }
            (crate::schema::walk::Slot::Single, sub) => {
                cx.at(key, |cx| {
                    disjoint_values_at(sub, root, cx, depth + 1);
                    Ok(())
                })
                .ok();
            }
            (crate::schema::walk::Slot::Array, Value::Array(items)) => {
                for (i, sub) in items.iter().enumerate() {
                    cx.at(key, |cx| cx.at(&i.to_string(), |cx| {
                        disjoint_values_at(sub, root, cx, depth + 1);
                        Ok(())
                    }))
                    .ok();
                }
            }
            _ => {}
        }
    }
}

/// [`report_disjoint_values`] at one node `o` (`schema`), not below it; `root`: the tool's
/// root, whose `allOf` is left to [`merge_root_combinators`].
fn disjoint_values_here(schema: &Value, o: &JsonObject, root: bool, cx: &mut Cx) {
    let l = limited(o);
    let all_of = !root && l.all_of.is_some();
    let d = if all_of { domain_with_all_of(l.domain, l.all_of, 0) } else { l.domain };
    let branches = if all_of { " and those of its `allOf` branches" } else { "" };
    // Values to take (`None`: no `enum`/`const` limits them), and whether one fits the types and
    // bounds; none to take at all is said as such.
    let fits = |v: &[Value]| v.iter().any(|x| d.admits_value(x));
    let values = if all_of {
        match values_allowed(schema, 0) {
            Some(v) if v.is_empty() => Err("its `enum`/`const` and those of its `allOf` branches have no value in common"),
            v => Ok(v.map(|v| fits(&v))),
        }
    } else {
        match l.values {
            (Some(Value::Array(e)), _) if e.is_empty() => Err("its `enum` is empty"),
            (Some(Value::Array(e)), Some(c)) if !e.iter().any(|v| crate::model::same_value(v, c)) => Err("its `const` is not among its `enum` values"),
            (Some(Value::Array(e)), _) => Ok(Some(fits(e))),
            // An `enum` that is no list limits nothing (the general path removes it).
            (Some(_), _) => Ok(Some(true)),
            (None, Some(c)) => Ok(Some(fits(std::slice::from_ref(c)))),
            (None, None) => Ok(None),
        }
    };
    let why = match values {
        Err(why) => Some(why.owned()),
        Ok(Some(false)) => Some(format!("none of its `enum`/`const` values fits its type and bounds{branches} ({})", limits_of(o))),
        Ok(None) if !d.some_value() => Some(format!("its type and bounds{branches} leave no value ({})", limits_of(o))),
        Ok(_) => None,
    };
    if let Some(why) = why {
        cx.problem("schema/disjoint-values", concat(&["allows no value: ", &why]));
    }
    if l.required.is_some() && is_object_node(o) {
        if let (Some(Value::Array(required)), Some(Value::Object(props))) = (l.required, o.find("properties")) {
            for name in required.iter().filter_map(Value::as_str) {
                if props.get(name) == Some(&Value::Bool(false)) {
                    cx.at("properties", |cx| cx.at(name, |cx| {
                        cx.problem("schema/disjoint-values", "allows no value: a required property whose schema is `false`; no arguments can have it");
                        Ok(())
                    }))
                    .ok();
                }
            }
        }
    }
    if !all_of {
        return;
    }
    let mut defs = Vec::new();
    definitions_under_all_of(o, "", &mut defs, 0);
    // Each name's definitions together (in their order: the index breaks ties), the names in
    // order: one pass over them, where filtering all of them for each name was quadratic in
    // thousands of branches. (The crate's own sort: core's would be one more instance.)
    let mut order: Vec<(&str, usize)> = defs.iter().enumerate().map(|(i, d)| (d.0, i)).collect();
    crate::model::heapsort(&mut order);
    for group in order.chunk_by(|a, b| a.0 == b.0) {
        let name = group[0].0;
        let mut common: Option<Vec<Value>> = None;
        let mut limited = Vec::new();
        for &(_, i) in group {
            let (_, at, s) = &defs[i];
            let Some(values) = values_allowed(s, 0) else { continue };
            if values.is_empty() {
                // Its own `allOf` allows nothing: said where it stands.
                limited.clear();
                break;
            }
            limited.push(at.as_str());
            common = Some(match common {
                None => values,
                Some(mut c) => {
                    c.retain(|v| values.iter().any(|w| crate::model::same_value(v, w)));
                    c
                }
            });
        }
        if limited.len() > 1 && common.is_some_and(|c| c.is_empty()) {
            let base = cx.path().to_owned();
            let at: Vec<String> = limited.iter().map(|a| format!("{base}{a}")).collect();
            cx.problem(
                "schema/disjoint-values",
                format!("property \"{name}\" allows no value: the enums of its definitions at {} have no value in common", at.join(", ")),
            );
        }
    }
}

/// Lowers a root `anyOf`/`oneOf`/`allOf` of object schemas into the root object.
///
/// `allOf`: properties merged (one defined in several branches gets a schema that says all of
/// them), `required` united, the branches' other keywords kept. `anyOf`/`oneOf`: properties
/// united (definitions that differ in their values only allow the values of all; others become
/// an `anyOf` of the definitions, reported), `required` = the intersection of the branches'
/// `required` (plus the root's own), and the alternatives are stated in the description, each
/// with the values that tell it apart, so the model still knows which combinations are valid.
/// Branches that are not objects cannot be merged and are reported as problems.
pub fn merge_root_combinators(root: &mut JsonObject, cx: &mut Cx) {
    merge_combinators(root, cx, None, true);
}

/// [`merge_root_combinators`] for a provider whose schema keeps no `title` (Ollama's): two
/// titles in a root `allOf` are then no loss to report.
pub(crate) fn merge_root_combinators_untitled(root: &mut JsonObject, cx: &mut Cx) {
    merge_combinators(root, cx, None, false);
}

/// [`merge_root_combinators`], the note naming each property the model will see renamed after
/// the merge by its new name (`renamed`: server's key → new; its fixed values, `requires` and
/// `properties` lists, and the keys in a branch's other keywords shown).
pub(crate) fn merge_root_combinators_named(root: &mut JsonObject, cx: &mut Cx, renamed: &std::collections::HashMap<String, String>) {
    merge_combinators(root, cx, Some(renamed), true);
}

/// `titles`: whether the schema keeps a `title` (two in a root `allOf` are reported).
fn merge_combinators(root: &mut JsonObject, cx: &mut Cx, renamed: Option<&std::collections::HashMap<String, String>>, titles: bool) {
    let key_name = &|k: &str| renamed.and_then(|r| r.get(k).cloned());
    // A branch of an `allOf` may bring an `allOf` of its own to the root: merged in turn, to a
    // fixed point. A reference merged once is not merged again (its keywords hold already), so
    // recursive and diamond-shaped inheritance ends; the schema nodes copied out of references
    // count against the node limit, and an `allOf` still left when it runs out is reported.
    let mut merged_refs: Vec<String> = Vec::new();
    let mut budget = cx.limits.max_nodes;
    let mut unions = ["anyOf", "oneOf"].into_iter();
    loop {
        let key = if root.contains_key("allOf") {
            "allOf"
        } else {
            match unions.next() {
                Some(k) => k,
                None => break,
            }
        };
        let Some(Value::Array(mut branches)) = root.remove(key) else { continue };
        if key == "allOf" && budget < branches.len() {
            cx.at(key, |cx| {
                cx.problem("schema/root-combinator-branch", "a root allOf nested too deeply to merge was dropped; what its branches say is lost");
                Ok(())
            })
            .ok();
            continue;
        }
        budget = budget.saturating_sub(branches.len());
        // A branch that is a reference (`{"$ref": "#/$defs/Base"}`, common for `allOf`
        // inheritance) is merged as what it refers to, or its properties would be lost.
        if branches.iter().any(|b| b.get("$ref").is_some()) {
            let whole = Value::Object(std::mem::take(root));
            let mut cut = Vec::new();
            for b in &mut branches {
                let seen = if key == "allOf" { Some(&mut merged_refs) } else { None };
                if let Some(r) = resolve_branch_refs(&whole, b, seen, &mut budget) {
                    cut.push(r);
                }
            }
            let Value::Object(w) = whole else { unreachable!() };
            *root = w;
            for r in cut {
                cx.at(key, |cx| {
                    cx.problem("schema/root-combinator-branch", format!("a branch's $ref {} is too large to merge; what it refers to is lost", short_json(&r)));
                    Ok(())
                })
                .ok();
            }
        }
        let is_all = key == "allOf";
        let mut props = match root.take("properties") {
            Some(Value::Object(p)) => p,
            _ => Map::new(),
        };
        let mut required: Vec<String> = root
            .find("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
            .unwrap_or_default();
        let mut required_index = NameIndex::default();
        // The root's own definitions hold whichever alternative is taken: the alternatives'
        // definitions are united among themselves, then intersected with the root's.
        let own = if is_all { None } else { Some(std::mem::take(&mut props)) };
        let mut common: Option<Vec<String>> = None;
        let mut alternatives = Vec::new();
        // Properties whose definitions differ in more than their values: an `anyOf` of them.
        let mut alternated: Vec<String> = Vec::new();
        // For each of them, the [`value_hash`]es of its definitions so far: a new one is known
        // new without comparing it with each.
        let mut alternatives_seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut seen_hashes: Vec<std::collections::HashSet<u64>> = Vec::new();
        // What the root's description holds, once a branch's is joined to it (see below).
        let mut held = Holds::default();
        for (i, branch) in branches.iter().enumerate() {
            let Value::Object(b) = branch else {
                cx.at(key, |cx| {
                    cx.at(&i.to_string(), |cx| {
                        cx.problem("schema/root-combinator-branch", "a non-object branch of a root combinator was dropped");
                        Ok(())
                    })
                })
                .ok();
                continue;
            };
            let b_required: Vec<String> = b
                .find("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
                .unwrap_or_default();
            let mut names = Vec::new();
            if let Some(Value::Object(bp)) = b.find("properties") {
                for (name, schema) in bp {
                    names.push(name.clone());
                    // A property already an `anyOf` of the definitions: one more branch, added
                    // in place (copying the `anyOf` for each branch was quadratic).
                    if let Some(&i) = alternatives_seen.get(name).filter(|_| props.get(name) != Some(schema)) {
                        let hashes = &mut seen_hashes[i];
                        if let (Some(Value::Array(defs)), false) = (props.get_mut(name).and_then(|p| p.find_mut("anyOf")), is_all) {
                            let h = value_hash(schema);
                            if hashes.insert(h) || !defs.contains(schema) {
                                defs.push(schema.clone());
                            }
                            continue;
                        }
                    }
                    match props.get(name) {
                        None => {
                            props.insert(name.clone(), schema.clone());
                        }
                        Some(existing) if existing != schema => {
                            let was_alternated = alternated.contains(name);
                            let alternate = !is_all && (was_alternated || !same_but_values_and_description(existing, schema));
                            let (merged, nested) = if is_all {
                                intersect(existing, schema)
                            } else if alternate {
                                (alternatives_of(existing, schema, was_alternated), false)
                            } else {
                                (unite_values(existing, schema), false)
                            };
                            if alternate && !was_alternated {
                                alternated.push(name.clone());
                                if let Some(Value::Array(defs)) = merged.find("anyOf") {
                                    alternatives_seen.insert(name.clone(), seen_hashes.len());
                                    seen_hashes.push(defs.iter().map(value_hash).collect());
                                }
                                let n = name.clone();
                                cx.at(key, |cx| {
                                    cx.change(
                                        "schema/root-combinator-conflict",
                                        format!("property \"{n}\" is defined differently in several branches; it accepts any of the definitions (anyOf)"),
                                    );
                                    Ok(())
                                })
                                .ok();
                            } else if nested {
                                let n = name.clone();
                                if disjoint_enums(existing, schema) {
                                    cx.at(key, |cx| {
                                        cx.problem(
                                            "schema/root-combinator-conflict",
                                            format!("property \"{n}\" allows no value: its definitions' enums have none in common; both are kept under allOf"),
                                        );
                                        Ok(())
                                    })
                                    .ok();
                                }
                                cx.at(key, |cx| {
                                    cx.change(
                                        "schema/root-combinator-conflict",
                                        format!("property \"{n}\" is defined differently in several branches; the definitions are kept under allOf"),
                                    );
                                    Ok(())
                                })
                                .ok();
                            }
                            props.insert(name.clone(), merged);
                        }
                        Some(_) => {}
                    }
                }
            }
            // Everything else a branch says about the whole object is described, not enforced
            // (with the keys the model sees).
            let extra: Vec<String> = if is_all {
                Vec::new()
            } else {
                let said = b.iter().filter(|(k, _)| !matches!(k.as_str(), "properties" | "required" | "type" | "description" | "title"));
                match renamed {
                    None => said.map(|(k, v)| format!("{k}: {}", short_json(v))).collect(),
                    Some(names) => {
                        let mut shown = Value::Object(said.map(|(k, v)| (k.clone(), v.clone())).collect());
                        crate::providers::keys::rename_for_note(&mut shown, names);
                        shown.as_object().into_iter().flatten().map(|(k, v)| format!("{k}: {}", short_json(v))).collect()
                    }
                }
            };
            if is_all {
                // A branch's text is kept as a nested merge keeps it: its description joined to
                // the root's, its title where the root has none.
                if let Some(Value::String(bd)) = b.find("description").filter(|d| d.as_str().is_some_and(|d| !d.trim().is_empty())) {
                    match root.find_mut("description") {
                        Some(Value::String(d)) => {
                            join_held(d, bd.trim(), &mut held);
                        }
                        _ => {
                            root.insert("description".owned(), string(bd.trim()));
                        }
                    }
                }
                match (b.find("title"), root.find("title")) {
                    (Some(t @ Value::String(_)), None) => {
                        root.insert("title".owned(), t.clone());
                    }
                    // The root's title, or an earlier branch's, is kept: the other is an
                    // annotation lost, reported as a nested merge reports it (a change).
                    (Some(t), Some(mine)) if titles && t != mine => {
                        cx.at(key, |cx| {
                            cx.change("schema/root-combinator-conflict", "allOf branches disagree on `title`; the first value is kept");
                            Ok(())
                        })
                        .ok();
                    }
                    _ => {}
                }
                // A branch whose `type` shares none with the root's: no value can be both.
                let (mine, theirs) = (types_of(root), types_of(b));
                let shares = |t: &&str| mine.contains(t) || (*t == "integer" && mine.contains(&"number")) || (*t == "number" && mine.contains(&"integer"));
                if !mine.is_empty() && !theirs.is_empty() && !theirs.iter().any(shares) {
                    let message = format!(
                        "allows no value: the root's type {} and the type {} of a branch of its `allOf` have none in common; the root's is kept",
                        short_json(root.find("type").unwrap_or(&Value::Null)),
                        short_json(b.find("type").unwrap_or(&Value::Null))
                    );
                    cx.problem("schema/disjoint-values", message);
                }
                // What a branch says about the whole object holds for it: kept on the root, unless
                // the root says otherwise (then reported, the root's kept).
                for (k, v) in b.iter().filter(|(k, _)| !matches!(k.as_str(), "properties" | "required" | "type" | "description" | "title")) {
                    match root.find(k) {
                        None if k == "$ref" => {
                            cx.at(key, |cx| {
                                cx.problem("schema/root-combinator-branch", format!("a branch's $ref {} cannot be resolved; what it refers to is lost", short_json(v)));
                                Ok(())
                            })
                            .ok();
                        }
                        None => {
                            root.insert(k.clone(), v.clone());
                        }
                        Some(Value::Array(_)) if k == "allOf" => {
                            if let (Some(Value::Array(mine)), Value::Array(more)) = (root.find_mut(k), v) {
                                mine.extend(more.iter().cloned());
                            }
                        }
                        Some(mine) if mine != v => {
                            let k = k.clone();
                            cx.at(key, |cx| {
                                cx.problem(
                                    "schema/root-combinator-conflict",
                                    format!("`{k}` of a branch differs from the root's or another branch's; the first is kept, {k}: {} is lost", short_json(v)),
                                );
                                Ok(())
                            })
                            .ok();
                        }
                        Some(_) => {}
                    }
                }
                required_index.add(&mut required, b_required);
            } else {
                let mut alt = String::new();
                if let Some(d) = b.find("description").or_else(|| b.find("title")).and_then(Value::as_str) {
                    alt.push_str(d.trim());
                    alt.push_str(": ");
                }
                // The values that tell the branch apart (`action: "create"`), which the merged
                // property (all the branches' values) no longer ties to the rest of the branch.
                let fixed = fixed_values(b, key_name);
                if !fixed.is_empty() {
                    alt.push_str(&fixed);
                    alt.push_str(": ");
                }
                let shown = |names: &[String]| names.iter().map(|n| key_name(n).unwrap_or_else(|| n.clone())).collect::<Vec<_>>().join(", ");
                if b_required.is_empty() {
                    alt.push_str(&format!("properties {}", if names.is_empty() { "(none)".owned() } else { shown(&names) }));
                } else {
                    alt.push_str(&format!("requires {}", shown(&b_required)));
                }
                if !extra.is_empty() {
                    alt.push_str(&format!(" ({})", extra.join("; ")));
                }
                alternatives.push(alt);
                common = Some(match common {
                    None => b_required,
                    Some(c) => {
                        let theirs = NameSet::of(b_required.iter().map(String::as_str));
                        c.into_iter().filter(|r| theirs.contains(r)).collect()
                    }
                });
            }
        }
        if let Some(own) = own {
            let mut all = Map::new();
            for (name, mine) in own {
                let joined = match props.remove(&name) {
                    Some(theirs) if theirs != mine => {
                        let (j, kept_both) = intersect(&mine, &theirs);
                        if kept_both {
                            let n = name.clone();
                            cx.at(key, |cx| {
                                cx.change(
                                    "schema/root-combinator-conflict",
                                    format!("property \"{n}\" is defined by the root and differently by the branches; the definitions are kept under allOf"),
                                );
                                Ok(())
                            })
                            .ok();
                        }
                        j
                    }
                    _ => mine,
                };
                all.insert(name, joined);
            }
            all.extend(props);
            props = all;
        }
        if let Some(c) = common {
            required_index.add(&mut required, c);
        }
        root.put("properties", Value::Object(props));
        root.put("required", Value::Array(required.into_iter().map(Value::String).collect()));
        if !alternatives.is_empty() {
            let word = if key == "oneOf" { "exactly one" } else { "at least one" };
            let note = format!(
                "Arguments must match {word} of: {}.",
                alternatives.iter().enumerate().map(|(i, a)| format!("({}) {a}", i + 1)).collect::<Vec<_>>().join("; ")
            );
            append_description(root, &note);
        }
        fix_required(root, cx);
        cx.change(
            "schema/root-combinator",
            format!("root `{key}` of {} branches merged into one object schema", branches.len()),
        );
    }
}

/// A branch's properties that allow one value (a `const`, or an `enum` of one), as
/// `name = value` joined by ", ".
/// Each name as `key_name` says (`None`: as it is).
pub(crate) fn fixed_values(branch: &JsonObject, key_name: &dyn Fn(&str) -> Option<String>) -> String {
    let Some(Value::Object(props)) = branch.find("properties") else { return String::new() };
    let mut out = String::new();
    for (name, s) in props {
        let value = match (s.find("const"), s.find("enum")) {
            (Some(c), _) => c,
            (None, Some(Value::Array(e))) if e.len() == 1 => &e[0],
            _ => continue,
        };
        if !out.is_empty() {
            out.push_str(", ");
        }
        out.push_str(&key_name(name).unwrap_or_else(|| name.clone()));
        out.push_str(" = ");
        crate::schema::push_short_json(&mut out, value);
    }
    out
}

/// Replaces a root combinator's branch that holds a local `$ref` by the schema it refers to
/// (through chains of references), its own other keywords merged in: `properties` united (the
/// branch's win), `required` united, the rest the branch's. A reference that cannot be
/// resolved is left as it is (and described with the branch).
///
/// `merged`: for an `allOf`, the references merged into the root already: one of them is not
/// copied again (the branch keeps its other keywords only), which ends chains that come back.
/// `budget`: schema nodes that may still be copied; a target larger than what is left is not
/// copied, its reference removed and returned (to be reported).
fn resolve_branch_refs(root: &Value, branch: &mut Value, mut merged: Option<&mut Vec<String>>, budget: &mut usize) -> Option<Value> {
    for _ in 0..64 {
        let Value::Object(b) = branch else { return None };
        let r = b.find("$ref").and_then(Value::as_str)?;
        let Some(Value::Object(target)) = refs::lookup(root, r) else { return None };
        if let Some(seen) = merged.as_deref_mut() {
            if seen.iter().any(|s| s == r) {
                b.remove("$ref");
                return None;
            }
            seen.push(r.to_owned());
        }
        let size = 1 + target.values().map(|v| refs::count_nodes(v, 1)).sum::<usize>();
        if size > *budget {
            return b.remove("$ref");
        }
        *budget -= size;
        let mut merged_target = target.clone();
        for (k, v) in std::mem::take(b) {
            if k == "$ref" {
                continue;
            }
            match (merged_target.find_mut(&k), v) {
                (Some(Value::Object(into)), Value::Object(own)) if k == "properties" => into.extend(own),
                (Some(Value::Array(into)), Value::Array(own)) if k == "required" => add_names(into, &own),
                (_, v) => {
                    merged_target.insert(k, v);
                }
            }
        }
        *branch = Value::Object(merged_target);
    }
    None
}

/// Rewrites a `oneOf` as `anyOf` (for strict modes, which have no `oneOf`): its branches are
/// appended to an `anyOf` beside it, else it becomes one (the last key). Returns whether there
/// was one.
pub fn one_of_as_any_of(obj: &mut JsonObject) -> bool {
    let Some(one) = obj.take("oneOf") else { return false };
    match obj.find_mut("anyOf") {
        Some(Value::Array(any)) => {
            if let Value::Array(o) = one {
                any.extend(o);
            }
        }
        _ => {
            obj.put("anyOf", one);
        }
    }
    true
}

/// Merges an `allOf` of object-like (or any) branches into `obj`. A property two branches
/// define is given a schema that says both ([`intersect`]); another keyword two branches set
/// to different values is combined as a `$ref`'s siblings join its target
/// ([`crate::schema::siblings::combine`]: the stricter bound, `enum`s and `type`s intersected,
/// `required` united), and a `const` beside an `enum` is the `const` alone where the enum has
/// it. A branch's own `allOf` is merged too, its branches after the others (each node is moved
/// once: the work is linear in the branches). Returns the conflicts: keywords whose values no
/// one value says (two patterns, formats or `const`s, types or enums with nothing in common,
/// two annotations, `title`s too), where the first value is kept. Two `description`s are joined.
/// Callers report two `title`s, an annotation lost, as a change rather than a problem.
pub fn merge_all_of(obj: &mut JsonObject) -> Vec<String> {
    let Some(Value::Array(branches)) = obj.take("allOf") else { return Vec::new() };
    let mut conflicts = Vec::new();
    let mut queue: std::collections::VecDeque<Value> = branches.into();
    // The names of `obj`'s `required`, which only the branches' grow: looked up in a set once
    // they are many (thousands of branches, each requiring a name).
    let mut required = NameIndex::default();
    // What `obj`'s description holds, once a branch's is joined to it.
    let mut held = Holds::default();
    // Draft 4's boolean exclusive bounds as numbers, so that each bound combines whole.
    crate::schema::draft4_exclusives(obj);
    while let Some(branch) = queue.pop_front() {
        let Value::Object(mut b) = branch else { continue };
        crate::schema::draft4_exclusives(&mut b);
        if let Some(Value::Array(inner)) = b.find("allOf") {
            if inner.iter().all(Value::is_object) {
                if let Some(Value::Array(inner)) = b.take("allOf") {
                    queue.extend(inner);
                }
            }
        }
        for (k, v) in b {
            match (k.as_str(), obj.get_mut(&k)) {
                ("properties", Some(Value::Object(p))) => {
                    if let Value::Object(bp) = v {
                        for (name, s) in bp {
                            // Defined in two branches: a schema that says both.
                            let both = match p.get(&name) {
                                Some(mine) if *mine != s => intersect(mine, &s).0,
                                Some(_) => continue,
                                None => s,
                            };
                            p.insert(name, both);
                        }
                    }
                }
                ("required", Some(Value::Array(r))) => {
                    if let Value::Array(br) = v {
                        required.add(r, br);
                    }
                }
                ("description", Some(Value::String(d))) => {
                    // Keep every branch's description: they often carry the only explanation.
                    if let Value::String(bd) = v {
                        let bd = bd.trim();
                        if !bd.is_empty() {
                            join_held(d, bd, &mut held);
                        }
                    }
                }
                ("title", Some(existing)) => {
                    // One name for the schema: the first kept, the other reported as another
                    // annotation's (not combined: `title` is no keyword [`combine`] joins).
                    if *existing != v {
                        conflicts.push(k);
                    }
                }
                (_, Some(existing)) => {
                    if *existing != v {
                        match combine(&k, existing, &v) {
                            Combined::Value(c) => *existing = c,
                            Combined::Override | Combined::Disjoint | Combined::Conflict => conflicts.push(k),
                        }
                    }
                }
                (_, None) => {
                    obj.insert(k, v);
                }
            }
        }
    }
    if !settle_const(obj) {
        conflicts.push("const".owned());
    }
    conflicts
}

/// A branch's description `bd` (trimmed, not empty) joined to `d`, a description that grows at
/// its end and that `held` is of, unless `d` holds it already: after `d` without its trailing
/// white space and a space. The text is extended in place and `held` asked what it holds,
/// rather than each branch reading and copying it all.
fn join_held(d: &mut String, bd: &str, held: &mut Holds) {
    if held.holds(d.len(), || Cow::Borrowed(d.trim_end()), bd, false) {
        return;
    }
    d.truncate(d.trim_end().len());
    d.push(' ');
    d.push_str(bd);
    #[cfg(test)]
    crate::schema::DESCRIPTION_BYTES.with(|b| b.set(b.get() + bd.len() + 1));
    held.extend(b" ", false, d.len());
    held.extend(bd.as_bytes(), false, d.len());
}

/// `parts` joined.
pub(crate) fn concat(parts: &[&str]) -> String {
    let mut s = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        s.push_str(p);
    }
    s
}

/// `prefix`, `v`'s JSON text (its numbers as JavaScript spells them, [`text::to_string_js`])
/// and `suffix`, in one string.
fn with_json(prefix: &str, v: &Value, suffix: &str) -> String {
    let mut out = Vec::with_capacity(prefix.len() + 8 + suffix.len());
    out.extend_from_slice(prefix.as_bytes());
    text::write_value_js(&mut out, v);
    out.extend_from_slice(suffix.as_bytes());
    text::into_string(out)
}

/// The noun after a count `v`: `one` for 1 (`1.0` too, which JavaScript writes as `1`), `many`
/// for any other value, so the model reads "at least 1 character".
fn counted<'a>(v: &Value, one: &'a str, many: &'a str) -> &'a str {
    if v.as_f64() == Some(1.0) { one } else { many }
}

/// `prefix` and [`short_json`] of `v`, in one string.
fn with_short_json(prefix: &str, v: &Value) -> String {
    let mut out = String::with_capacity(prefix.len() + 16);
    out.push_str(prefix);
    crate::schema::push_short_json(&mut out, v);
    out
}

/// The keywords [`keyword_hint`] gives no note for, whatever their value: among them the
/// containers of reference targets (`components` is OpenAPI's), whose references are inlined
/// where they are used.
pub(crate) fn unhinted(key: &str) -> bool {
    matches!(
        key,
        "$schema" | "$id" | "$comment" | "$anchor" | "$dynamicAnchor" | "$recursiveAnchor" | "$vocabulary" | "$defs" | "definitions"
            | "components" | "title" | "description" | "propertyOrdering" | "readOnly" | "writeOnly" | "strict"
    ) || key.starts_with("x-")
}

/// The notes of [`keyword_hint`] that are fixed text (no allocation for the commonest ones).
pub(crate) fn fixed_hint(key: &str, v: &Value) -> Option<&'static str> {
    match (key, v) {
        ("uniqueItems", Value::Bool(true)) => Some("items must be unique"),
        ("deprecated", Value::Bool(true)) => Some("deprecated"),
        ("additionalProperties", Value::Bool(true)) => Some("additional properties allowed"),
        ("additionalProperties", Value::Object(o)) if o.is_empty() => Some("additional properties allowed"),
        _ => None,
    }
}

/// A `contains` beside `minContains: 0`, which asks for no matching item (an array without one
/// is valid), for a provider that describes `contains` ("must contain an item matching ..."):
/// taken out of `o` with its `minContains` and `maxContains`. `None` when `o` has no such
/// `contains`; else what the three still say, a `maxContains` bound on the matching items
/// ("at most 2 items matching ..."), or nothing.
pub fn take_unrequired_contains(o: &mut JsonObject) -> Option<Option<String>> {
    if !o.has("contains") || o.find("minContains").and_then(Value::as_f64) != Some(0.0) {
        return None;
    }
    let c = o.take("contains").unwrap_or_default();
    o.take("minContains");
    Some(match o.take("maxContains").filter(Value::is_number) {
        Some(m) if m.as_f64() == Some(0.0) => Some(with_short_json("no item may match ", &c)),
        Some(m) => Some(format!("{} matching {}", with_json("at most ", &m, counted(&m, " item", " items")), short_json(&c))),
        None => None,
    })
}

/// A node's `oneOf` as `anyOf`, for a provider that reads `anyOf` but not `oneOf` ("exactly one"
/// is not expressible): `rules` are the report's for the rewrite and for a `oneOf` beside an
/// `anyOf`; `why` is said before the rewrite's reason, `no_all_of` in the problem's. Beside an
/// `anyOf` both must hold, and with no `allOf` joining the two lists would accept what either
/// accepts: the `anyOf` stays and the `oneOf` is described, as JSON, whole within reason (its
/// branches' formats and bounds are what it adds).
pub fn one_of_described_as_any_of(o: &mut JsonObject, cx: &mut Cx, rules: [&'static str; 2], why: &str, no_all_of: &str) {
    let Some(one) = o.take("oneOf") else { return };
    if o.find("anyOf").is_some_and(Value::is_array) {
        let mut branches = text::to_string_js(&one);
        if let Some((cut, _)) = branches.char_indices().nth(2000) {
            branches.truncate(cut);
            branches.push_str("...");
        }
        append_description(o, &format!("(must also match exactly one of: {branches})"));
        cx.problem(
            rules[1],
            format!("`oneOf` beside `anyOf`: both must hold, and {no_all_of}; the anyOf is kept, the oneOf removed and described (values it rejects are accepted)"),
        );
    } else {
        o.put("anyOf", if one.is_array() { one } else { Value::Array(Vec::new()) });
        cx.change(rules[0], format!("oneOf read as anyOf ({why}\"exactly one\" is not expressible)"));
    }
}

/// A node's `const` as a one-value `enum`, for a provider that reads enums but not `const`
/// (`rule`: the report's; `why`: said after the rewrite's message). Beside an enum, the enum is
/// narrowed to the const's value (both must hold); a const the enum lacks is a problem, written
/// as the const's value.
pub fn const_as_enum(o: &mut JsonObject, cx: &mut Cx, rule: &'static str, why: &str) {
    let Some(c) = o.take("const") else { return };
    match o.find_mut("enum") {
        None => {
            o.put("enum", Value::Array(vec![c]));
            cx.change(rule, format!("const rewritten as a one-value enum{why}"));
        }
        Some(Value::Array(values)) if values.contains(&c) => {
            if values.len() > 1 {
                *values = vec![c];
                cx.change(rule, "const beside an enum: the enum narrowed to the const's value");
            }
        }
        Some(values) => {
            let listed = short_json(values);
            *values = Value::Array(vec![c.clone()]);
            cx.problem(rule, format!("const {} is not among the enum's values {listed}: no value can match both; written as the const's value", short_json(&c)));
        }
    }
}

/// A short human description of a dropped keyword, or `None` when it carries no meaning a model
/// could use (e.g. `$schema`, `$id`, `$comment`).
pub fn keyword_hint(key: &str, v: &Value) -> Option<String> {
    if unhinted(key) {
        return None;
    }
    if let Some(note) = fixed_hint(key, v) {
        return Some(note.owned());
    }
    Some(match key {
        // The common notes joined without `format!` (its machinery is most of their cost in
        // wasm); `{v}` is the value's JSON text, its numbers as JavaScript spells them (`1.0`
        // as `1`), so JSON text and JS objects give the model the same words.
        "format" => match v.as_str() {
            Some(f) => concat(&["format: ", f]),
            None => with_short_json("format: ", v),
        },
        "default" => with_short_json("default: ", v),
        // `examples` is a list (see [`examples_hint`]); `example` (OpenAPI's) one value, an
        // array as it is.
        "examples" => match v.as_array().map(Vec::as_slice) {
            Some([one]) => with_short_json("example: ", one),
            Some([]) => return None,
            Some(values) => examples_hint(values),
            None => with_short_json("example: ", v),
        },
        "example" => with_short_json("example: ", v),
        "exclusiveMinimum" if v.is_number() => with_json("must be > ", v, ""),
        "exclusiveMaximum" if v.is_number() => with_json("must be < ", v, ""),
        "minimum" => with_json("minimum: ", v, ""),
        "maximum" => with_json("maximum: ", v, ""),
        "multipleOf" => with_json("multiple of ", v, ""),
        "minLength" => with_json("at least ", v, counted(v, " character", " characters")),
        "maxLength" => with_json("at most ", v, counted(v, " character", " characters")),
        "minItems" => with_json("at least ", v, counted(v, " item", " items")),
        "maxItems" => with_json("at most ", v, counted(v, " item", " items")),
        "uniqueItems" => return None,
        "pattern" => concat(&["pattern: ", v.as_str().unwrap_or_default()]),
        "minProperties" => with_json("at least ", v, counted(v, " property", " properties")),
        "maxProperties" => with_json("at most ", v, counted(v, " property", " properties")),
        "deprecated" => return None,
        "const" => with_short_json("must be ", v),
        "contentEncoding" | "contentMediaType" => format!("{key}: {}", short_json(v)),
        "additionalProperties" => match v {
            Value::Object(_) => format!("additional properties allowed, values: {}", summarize(v, 0)),
            _ => return None,
        },
        "patternProperties" => match v {
            Value::Object(o) => format!(
                "additional properties allowed: {}",
                o.iter().map(|(p, s)| format!("keys matching {p}: {}", summarize(s, 0))).collect::<Vec<_>>().join("; ")
            ),
            _ => return None,
        },
        "propertyNames" => match v.find("pattern").and_then(Value::as_str) {
            Some(p) => format!("property names must match {p}"),
            None => format!("property names: {}", summarize(v, 0)),
        },
        "dependentRequired" | "dependencies" | "dependentSchemas" => format!("{key}: {}", short_json(v)),
        "not" => format!("must not match {}", short_json(v)),
        "if" | "then" | "else" => format!("conditional ({key}): {}", short_json(v)),
        "contains" => format!("must contain an item matching {}", short_json(v)),
        "minContains" | "maxContains" => format!("{key}: {}", crate::text::to_string_js(v)),
        "prefixItems" => format!("leading items: {}", short_json(v)),
        "unevaluatedProperties" | "unevaluatedItems" | "additionalItems" => match v {
            Value::Bool(false) => return None,
            _ => format!("{key}: {}", short_json(v)),
        },
        "discriminator" => match v.find("propertyName").and_then(Value::as_str) {
            Some(name) => discriminator_hint(name, v.find("mapping")),
            None => format!("{key}: {}", short_json(v)),
        },
        "externalDocs" => match v.find("url").and_then(Value::as_str) {
            Some(url) => match v.find("description").and_then(Value::as_str).map(str::trim).filter(|d| !d.is_empty()) {
                Some(d) => format!("{key}: {url} ({d})"),
                None => format!("{key}: {url}"),
            },
            None => format!("{key}: {}", short_json(v)),
        },
        // A subschema, read as one; any other object is data, written as JSON (read as a
        // schema, `{"propertyName": "kind"}` would say "any").
        "items" | "contentSchema" if v.is_object() => format!("{key}: {}", summarize(v, 0)),
        _ => format!("{key}: {}", short_json(v)),
    })
}

/// The note for `examples` of several values: each as [`short_json`] writes it, as many as fit
/// in the length of one such value (the first always), and how many more there are, so that no
/// value is cut and none is left out unsaid.
fn examples_hint(values: &[Value]) -> String {
    let mut note = "examples: ".owned();
    let (mut shown, mut chars) = (0, 0);
    for v in values {
        let s = short_json(v);
        let n = s.chars().count();
        if shown > 0 {
            if chars + 2 + n > 80 {
                break;
            }
            note.push_str(", ");
            chars += 2;
        }
        note.push_str(&s);
        chars += n;
        shown += 1;
    }
    if shown < values.len() {
        note.push_str(&format!(" (and {} more)", values.len() - shown));
    }
    note
}

/// The note for an OpenAPI `discriminator`: the property that tells the branches apart and, of
/// its `mapping`, each value with the name its schema is referred to by (the references were
/// inlined). Names and values are JSON strings (a quote in one cannot end it); past the
/// "discriminator: ", the note is cut as a [`short_json`] is.
fn discriminator_hint(name: &str, mapping: Option<&Value>) -> String {
    let json_str = |s: &str| {
        let mut out = Vec::new();
        text::write_str(&mut out, s);
        text::into_string(out)
    };
    let mut note = "discriminator: ".owned();
    let start = note.len();
    note.push_str(&format!("property {}", json_str(name)));
    if let Some(Value::Object(m)) = mapping.filter(|m| m.as_object().is_some_and(|m| !m.is_empty())) {
        note.push_str(" (");
        for (i, (value, target)) in m.iter().enumerate() {
            if i > 0 {
                note.push_str(", ");
            }
            // A reference's last token, unescaped (`C~1D` is `C/D`).
            let target = match target.as_str() {
                Some(t) => t.rsplit('/').next().unwrap_or(t).replace("~1", "/").replace("~0", "~"),
                None => short_json(target),
            };
            note.push_str(&format!("{}: {target}", json_str(value)));
            // Enough for the cut below, whatever the mapping's size.
            if note.len() - start > 80 * 4 {
                break;
            }
        }
        note.push(')');
    }
    crate::schema::cut_short(&mut note, start);
    note
}

/// A compact readable rendering of a schema for descriptions: `string`, `"a" | "b"`,
/// `{id: string, name?: string}`, `number[]`, with descriptions in parentheses.
pub fn summarize(v: &Value, depth: usize) -> String {
    let mut s = summarize_inner(v, depth);
    if s.chars().count() > 2000 {
        s = s.chars().take(1997).collect::<String>() + "...";
    }
    s
}

fn summarize_inner(v: &Value, depth: usize) -> String {
    let Value::Object(o) = v else {
        return match v {
            Value::Bool(true) => "any".owned(),
            Value::Bool(false) => "nothing".owned(),
            _ => "any".owned(),
        };
    };
    if depth > 6 {
        return "...".owned();
    }
    let mut out = if let Some(Value::Array(e)) = o.find("enum") {
        e.iter().map(short_json).collect::<Vec<_>>().join(" | ")
    } else if let Some(c) = o.find("const") {
        short_json(c)
    } else if let Some(Value::Array(bs)) = o.find("anyOf").or_else(|| o.find("oneOf")) {
        bs.iter().map(|b| summarize_inner(b, depth + 1)).collect::<Vec<_>>().join(" | ")
    } else {
        let ts = types_of(o);
        let t = ts.iter().filter(|t| **t != "null").copied().collect::<Vec<_>>().join(" | ");
        if let Some(Value::Object(props)) = o.find("properties") {
            let req = NameSet::of(o.find("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str));
            let fields: Vec<String> = props
                .iter()
                .map(|(k, s)| format!("{k}{}: {}", if req.contains(k) { "" } else { "?" }, summarize_inner(s, depth + 1)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        } else if ts.contains(&"array") {
            format!("{}[]", o.find("items").map_or_else(|| "any".owned(), |i| summarize_inner(i, depth + 1)))
        } else if t.is_empty() {
            "any".owned()
        } else {
            t
        }
    };
    if ts_nullable(o) {
        out.push_str(" | null");
    }
    if let Some(Value::String(d)) = o.find("description") {
        if !d.trim().is_empty() {
            out.push_str(&format!(" ({})", d.trim()));
        }
    }
    out
}

fn ts_nullable(o: &JsonObject) -> bool {
    types_of(o).contains(&"null")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Limits;
    use serde_json::json;

    /// A value schema of thousands of properties, all required, is summarized in linear time:
    /// each name is looked up in a set of the required ones, where scanning the list for each
    /// took 16 times the work for 4 times the properties. The text is as before (`?` on the
    /// optional ones), short list or long.
    #[test]
    fn summaries_of_many_required_properties_take_linear_time() {
        let schema = |n: usize| {
            let props: JsonObject = (0..n).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect();
            let mut required: Vec<Value> = (0..n).rev().filter(|i| i % 2 == 0).map(|i| json!(format!("p{i}"))).collect();
            required.extend([json!("p0"), json!(7)]);
            json!({"type": "object", "properties": props, "required": required})
        };
        let want = |n: usize| format!("{{{}}}", (0..n).map(|i| format!("p{i}{}: string", if i % 2 == 0 { "" } else { "?" })).collect::<Vec<_>>().join(", "));
        let steps = |n: usize| {
            let s = schema(n);
            let before = crate::model::NAME_STEPS.with(|s| s.get());
            assert_eq!(summarize_inner(&s, 0), want(n));
            crate::model::NAME_STEPS.with(|s| s.get()) - before
        };
        let (small, large) = (steps(2_000), steps(8_000));
        assert!(large <= 5 * small, "{small} then {large} steps for 4 times the properties");
        for n in [3, crate::model::NameSet::FEW, crate::model::NameSet::FEW + 1, 40] {
            assert_eq!(summarize(&schema(n), 0), want(n));
        }
    }

    #[test]
    fn notes_spell_values_as_display_does() {
        for v in [json!(1), json!(-2.5), json!(1e300), json!(12345678901234567890u64), json!("a\"b"), json!([1, "x"]), json!(null), json!(true)] {
            let js = crate::text::to_string_js(&v);
            assert_eq!(keyword_hint("minimum", &v).unwrap(), format!("minimum: {js}"));
            let noun = if v == json!(1) { "item" } else { "items" };
            assert_eq!(keyword_hint("maxItems", &v).unwrap(), format!("at most {js} {noun}"));
            assert_eq!(keyword_hint("default", &v).unwrap(), format!("default: {}", short_json(&v)));
        }
        assert_eq!(short_json(&json!("x")), "\"x\"");
        assert_eq!(short_json(&json!("é".repeat(81))).chars().count(), 80);
        // The first 77 characters and "..." past 80 characters (not bytes).
        let reference = |v: &Value| {
            let s = match v {
                Value::String(s) => format!("\"{s}\""),
                other => other.to_string(),
            };
            if s.chars().count() > 80 { format!("{}...", s.chars().take(77).collect::<String>()) } else { s }
        };
        for n in [0, 1, 77, 78, 79, 80, 81, 200] {
            for unit in ["a", "é", "😀"] {
                for v in [json!(unit.repeat(n)), json!([unit.repeat(n)]), json!({ "k": unit.repeat(n) })] {
                    assert_eq!(short_json(&v), reference(&v), "{v}");
                    assert_eq!(keyword_hint("default", &v).unwrap(), format!("default: {}", reference(&v)));
                    assert_eq!(keyword_hint("const", &v).unwrap(), format!("must be {}", reference(&v)));
                    assert_eq!(keyword_hint("examples", &json!([v.clone()])).unwrap(), format!("example: {}", reference(&v)));
                    let r = reference(&v);
                    let both = if r.chars().count() + 3 <= 80 { format!("examples: {r}, 1") } else { format!("examples: {r} (and 1 more)") };
                    assert_eq!(keyword_hint("examples", &json!([v.clone(), 1])).unwrap(), both);
                }
            }
        }
        for (key, v, note) in [
            ("minLength", json!(3), "at least 3 characters"),
            ("maxLength", json!(3), "at most 3 characters"),
            ("minItems", json!(0), "at least 0 items"),
            ("minProperties", json!(1.5), "at least 1.5 properties"),
            ("maxProperties", json!(2), "at most 2 properties"),
            // One thing in the singular (zod's `.min(1)` is common), `1.0` as JavaScript spells it.
            ("minLength", json!(1), "at least 1 character"),
            ("maxLength", json!(1.0), "at most 1 character"),
            ("minItems", json!(1), "at least 1 item"),
            ("maxItems", json!(1), "at most 1 item"),
            ("minProperties", json!(1), "at least 1 property"),
            ("maxProperties", json!(1.0), "at most 1 property"),
            ("minItems", json!(-1), "at least -1 items"),
            ("minLength", json!("1"), "at least \"1\" characters"),
            ("exclusiveMinimum", json!(-1), "must be > -1"),
            ("exclusiveMaximum", json!(1e3), "must be < 1000"),
            ("multipleOf", json!(0.5), "multiple of 0.5"),
            ("maximum", json!("x"), "maximum: \"x\""),
            ("format", json!(5), "format: 5"),
        ] {
            assert_eq!(keyword_hint(key, &v).unwrap(), note, "{key}");
        }
        assert_eq!(keyword_hint("format", &json!("uri")).unwrap(), "format: uri");
    }

    /// Every value of `examples` is described, as many as fit in a note, and how many more there
    /// are, where only the first was (s29f F2); OpenAPI's `example` is one value, an array whole.
    #[test]
    fn examples_are_described_all_or_counted() {
        for (v, note) in [
            (json!(["celsius", "fahrenheit", "kelvin"]), r#"examples: "celsius", "fahrenheit", "kelvin""#),
            (json!(["celsius"]), r#"example: "celsius""#),
            (json!("celsius"), r#"example: "celsius""#),
            (json!([[1, 2], [3]]), "examples: [1,2], [3]"),
            (json!(["a".repeat(60), "b".repeat(12), "c"]), &*format!("examples: \"{}\", \"{}\" (and 1 more)", "a".repeat(60), "b".repeat(12))),
            (json!(["a".repeat(100), "b"]), &*format!("examples: \"{}... (and 1 more)", "a".repeat(76))),
        ] {
            assert_eq!(keyword_hint("examples", &v).unwrap(), note, "{v}");
        }
        assert_eq!(keyword_hint("examples", &json!([])), None);
        assert_eq!(keyword_hint("example", &json!(["a", "b"])).unwrap(), r#"example: ["a","b"]"#);
    }

    /// A removed keyword whose value is an object but no schema says what the object says, not
    /// "any" (s29f F1); a container of reference targets (inlined where used) says nothing.
    #[test]
    fn object_values_that_are_not_schemas_are_described_as_they_are() {
        for (key, v, note) in [
            ("discriminator", json!({"propertyName": "kind"}), r#"discriminator: property "kind""#),
            (
                "discriminator",
                json!({"propertyName": "kind", "mapping": {"cat": "#/components/schemas/Cat", "dog": "Dog"}}),
                r#"discriminator: property "kind" ("cat": Cat, "dog": Dog)"#,
            ),
            ("discriminator", json!({"mapping": {}}), r#"discriminator: {"mapping":{}}"#),
            ("externalDocs", json!({"url": "https://example.com/doc", "description": "how links work"}), "externalDocs: https://example.com/doc (how links work)"),
            ("externalDocs", json!({"url": "https://example.com/doc"}), "externalDocs: https://example.com/doc"),
            ("x_meta", json!({"owner": "ops"}), r#"x_meta: {"owner":"ops"}"#),
            ("items", json!({"type": "integer"}), "items: integer"),
        ] {
            assert_eq!(keyword_hint(key, &v).unwrap(), note, "{key}");
        }
        let long = json!({"propertyName": "k", "mapping": (0..20).map(|i| (format!("v{i}"), json!(format!("#/$defs/T{i}")))).collect::<JsonObject>()});
        let note = keyword_hint("discriminator", &long).unwrap();
        assert!(note.ends_with("...") && note.chars().count() == 95, "{note}");
        // The whole note is bounded, the names are JSON strings, and a reference's escapes are
        // read (s29r3 F2).
        for (v, note) in [
            (json!({"propertyName": "k".repeat(200)}), format!("discriminator: property \"{}...", "k".repeat(67))),
            (
                json!({"propertyName": "ki\"nd", "mapping": {"a\"b": "#/components/schemas/C~1D", "c": "#/$defs/E~0F"}}),
                r#"discriminator: property "ki\"nd" ("a\"b": C/D, "c": E~F)"#.owned(),
            ),
        ] {
            assert_eq!(keyword_hint("discriminator", &v).unwrap(), note, "{v}");
        }
        for key in ["components", "$recursiveAnchor", "$defs", "definitions"] {
            assert_eq!(keyword_hint(key, &json!({"schemas": {"U": {"type": "object"}}})), None, "{key}");
        }
    }

    #[test]
    fn root_any_of_required_sets_become_one_object() {
        // https://github.com/dearlordylord/huly-mcp/issues/66: "at least one of" via anyOf of required sets
        let mut root = json!({
            "type":"object",
            "properties":{"id":{"type":"string"},"name":{"type":"string"}},
            "anyOf":[{"required":["id"]},{"required":["name"]}]
        });
        let mut cx = Cx::new(Limits::default());
        merge_root_combinators(root.as_object_mut().unwrap(), &mut cx);
        assert!(root.get("anyOf").is_none());
        assert_eq!(root["required"], json!([]));
        assert!(root["description"].as_str().unwrap().contains("(1) requires id; (2) requires name"));
        assert_eq!(cx.changes.last().unwrap().rule, "schema/root-combinator");
    }

    /// Branches that are references (`allOf` inheritance, `anyOf` of definitions) are merged as
    /// what they refer to, through chains, with their own keywords; one that cannot be resolved
    /// is described, not merged.
    #[test]
    fn root_combinator_branches_that_are_references_are_merged_as_their_targets() {
        let mut root = json!({"type":"object","allOf":[{"$ref":"#/$defs/Base"},{"properties":{"b":{"type":"string"}}}],
            "$defs":{"Base":{"$ref":"#/$defs/Root"},"Root":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}}});
        let mut cx = Cx::new(Limits::default());
        merge_root_combinators(root.as_object_mut().unwrap(), &mut cx);
        assert_eq!(root["properties"], json!({"a":{"type":"string"},"b":{"type":"string"}}));
        assert_eq!(root["required"], json!(["a"]));

        let mut root = json!({"anyOf":[{"$ref":"#/$defs/A","required":["z"],"properties":{"z":{"type":"boolean"}}},{"$ref":"#/$defs/B"},{"$ref":"#/$defs/missing"}],
            "$defs":{"A":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]},"B":{"type":"object","properties":{"y":{"type":"number"}},"required":["y"]}}});
        let mut cx = Cx::new(Limits::default());
        merge_root_combinators(root.as_object_mut().unwrap(), &mut cx);
        assert_eq!(root["properties"], json!({"x":{"type":"string"},"z":{"type":"boolean"},"y":{"type":"number"}}));
        assert_eq!(root["required"], json!([]));
        let d = root["description"].as_str().unwrap();
        assert!(d.contains("(1) requires x, z; (2) requires y; (3) properties (none) ($ref: \"#/$defs/missing\")"), "{d}");
    }

    /// Two definitions whose `items` differ: every item holds to both, unless a tuple stands
    /// beside them (its items are not the others').
    #[test]
    fn draft4_exclusive_bounds_combine_with_their_bound() {
        // `< 10` and `<= 5` is `<= 5` (both kept, as numbers: the first never binds); `< 5` and `<= 5` is `< 5`.
        let mut o = json!({"allOf": [{"maximum": 10, "exclusiveMaximum": true}, {"maximum": 5}]}).as_object().cloned().unwrap();
        assert!(merge_all_of(&mut o).is_empty());
        assert_eq!(Value::Object(o), json!({"exclusiveMaximum": 10, "maximum": 5}));
        let mut o = json!({"allOf": [{"minimum": 5, "exclusiveMinimum": true}, {"minimum": 5}, {"minimum": 1, "exclusiveMinimum": false}]}).as_object().cloned().unwrap();
        assert!(merge_all_of(&mut o).is_empty());
        assert_eq!(Value::Object(o), json!({"exclusiveMinimum": 5, "minimum": 5}));
        let (j, nested) = intersect(&json!({"type": "number", "maximum": 10, "exclusiveMaximum": true}), &json!({"type": "number", "maximum": 5}));
        assert_eq!((j, nested), (json!({"type": "number", "exclusiveMaximum": 10, "maximum": 5}), false));
    }

    #[test]
    fn intersected_items_say_both() {
        let a = json!({"type": "array", "items": {"type": "string", "description": "An id"}});
        let b = json!({"type": "array", "items": {"type": "string", "maxLength": 8}});
        assert_eq!(intersect(&a, &b), (json!({"type": "array", "items": {"type": "string", "description": "An id", "maxLength": 8}}), false));
        let tuple = json!({"type": "array", "prefixItems": [{"type": "integer"}], "items": {"type": "string"}});
        assert_eq!(intersect(&tuple, &b).0, json!({"allOf": [tuple, b]}));
        let draft4 = json!({"type": "array", "items": [{"type": "integer"}]});
        assert_eq!(intersect(&draft4, &b).0, json!({"allOf": [draft4, b]}));
    }

    #[test]
    fn root_one_of_objects_union_properties_intersect_required() {
        let mut root = json!({"type":"object","oneOf":[
            {"type":"object","properties":{"a":{"type":"string"},"c":{}},"required":["a","c"]},
            {"type":"object","properties":{"b":{"type":"number"},"c":{}},"required":["b","c"]}
        ]});
        let mut cx = Cx::new(Limits::default());
        merge_root_combinators(root.as_object_mut().unwrap(), &mut cx);
        assert_eq!(root["properties"].as_object().unwrap().keys().collect::<Vec<_>>(), ["a", "c", "b"]);
        assert_eq!(root["required"], json!(["c"]));
        assert!(root["description"].as_str().unwrap().starts_with("Arguments must match exactly one of"));
    }

    /// A root union discriminated by `const` (or `enum`) keeps every branch's value; properties
    /// the branches define differently accept any of the definitions; a root `allOf` says what
    /// all its branches say of a property.
    #[test]
    fn root_combinators_keep_every_branch_of_a_property() {
        let mut root = json!({"anyOf":[
            {"type":"object","properties":{"action":{"type":"string","const":"create"},"name":{"type":"string"}},"required":["action","name"]},
            {"type":"object","properties":{"action":{"type":"string","const":"delete"},"id":{"type":"integer"}},"required":["action","id"]}]});
        let mut cx = Cx::new(Limits::default());
        merge_root_combinators(root.as_object_mut().unwrap(), &mut cx);
        assert_eq!(root["properties"]["action"], json!({"type":"string","enum":["create","delete"]}));
        assert_eq!(root["required"], json!(["action"]));
        let d = root["description"].as_str().unwrap();
        assert!(d.contains(r#"(1) action = "create": requires action, name; (2) action = "delete": requires action, id"#), "{d}");
        assert!(!cx.changes.iter().any(|d| d.rule == "schema/root-combinator-conflict"), "{:?}", cx.changes);
        // A value limit in one branch only: none in the union.
        let mut root = json!({"oneOf":[{"properties":{"k":{"type":"string","enum":["a"]}}},{"properties":{"k":{"type":"string"}}}]});
        merge_root_combinators(root.as_object_mut().unwrap(), &mut Cx::new(Limits::default()));
        assert_eq!(root["properties"]["k"], json!({"type":"string"}));

        let mut root = json!({"anyOf":[{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]},
            {"type":"object","properties":{"v":{"type":"integer"}},"required":["v"]},
            {"type":"object","properties":{"v":{"type":"boolean"}}},
            {"type":"object","properties":{"v":{"type":"integer"}}}]});
        let mut cx = Cx::new(Limits::default());
        merge_root_combinators(root.as_object_mut().unwrap(), &mut cx);
        assert_eq!(root["properties"]["v"], json!({"anyOf":[{"type":"string"},{"type":"integer"},{"type":"boolean"}]}));
        assert_eq!(cx.changes.iter().filter(|d| d.rule == "schema/root-combinator-conflict").count(), 1, "{:?}", cx.changes);

        let mut root = json!({"allOf":[{"type":"object","properties":{"a":{"type":"string"},"n":{"type":["number","null"]}},"required":["a"]},
            {"properties":{"a":{"maxLength":3,"description":"short"},"n":{"type":"integer"}}},
            {"properties":{"a":{"pattern":"^x"}},"additionalProperties":false}]});
        let mut cx = Cx::new(Limits::default());
        merge_root_combinators(root.as_object_mut().unwrap(), &mut cx);
        assert_eq!(root["properties"]["a"], json!({"type":"string","maxLength":3,"description":"short","pattern":"^x"}));
        assert_eq!(root["properties"]["n"], json!({"type":"integer"}));
        assert_eq!(root["additionalProperties"], json!(false), "a branch's word on the whole object is kept");
        assert!(cx.problems.is_empty(), "{:?}", cx.problems);
        // Values that cannot be combined keyword by keyword: both definitions, under allOf.
        let mut root = json!({"allOf":[{"properties":{"a":{"type":"string","pattern":"^a"}}},{"properties":{"a":{"pattern":"b$"}}}]});
        let mut cx = Cx::new(Limits::default());
        merge_root_combinators(root.as_object_mut().unwrap(), &mut cx);
        assert_eq!(root["properties"]["a"], json!({"allOf":[{"type":"string","pattern":"^a"},{"pattern":"b$"}]}));
        assert!(cx.changes.iter().any(|d| d.rule == "schema/root-combinator-conflict"), "{:?}", cx.changes);
    }

    /// A root `allOf` branch's description is joined to the root's and its title kept where the
    /// root has none, as a nested merge keeps them; a branch that is a `$ref` brings its
    /// definition's.
    #[test]
    fn root_all_of_keeps_the_branches_text() {
        let mut root = json!({"type":"object","description":"Root text.","properties":{"a":{"type":"string"},"b":{"type":"string"}},
            "allOf":[{"description":"Never send a and b together.","title":"Exclusive","required":["a"]},{"description":"Root text.","title":"Other"}]});
        let mut cx = Cx::new(Limits::default());
        merge_root_combinators(root.as_object_mut().unwrap(), &mut cx);
        assert_eq!(root["description"], "Root text. Never send a and b together.");
        assert_eq!(root["title"], "Exclusive");
        assert_eq!(root["required"], json!(["a"]));
        let mut root = json!({"type":"object","$defs":{"Base":{"type":"object","description":"A base.","title":"Base","properties":{"id":{"type":"string"}}}},
            "allOf":[{"$ref":"#/$defs/Base"}]});
        merge_root_combinators(root.as_object_mut().unwrap(), &mut Cx::new(Limits::default()));
        assert_eq!((&root["description"], &root["title"]), (&json!("A base."), &json!("Base")), "{root}");
        assert_eq!(root["properties"]["id"], json!({"type":"string"}));
    }

    /// A root `allOf` branch whose `type` shares none with the root's allows no value: reported
    /// (`schema/disjoint-values`) as the same shape below the root is, the root's type kept; a
    /// branch that allows an object is not reported.
    #[test]
    fn root_all_of_reports_a_branch_type_the_root_excludes() {
        for (branch, disjoint) in [
            (json!({"type":"string","minLength":2}), true),
            (json!({"type":["string","null"]}), true),
            (json!({"type":["object","null"]}), false),
            (json!({"type":"object","minProperties":1}), false),
            (json!({"minProperties":1}), false),
        ] {
            let mut root = json!({"type":"object","properties":{"a":{"type":"string"}},"allOf":[branch.clone()]});
            let mut cx = Cx::new(Limits::default());
            merge_root_combinators(root.as_object_mut().unwrap(), &mut cx);
            assert_eq!(cx.problems.iter().any(|d| d.rule == "schema/disjoint-values" && d.path.is_empty()), disjoint, "{branch}: {:?}", cx.problems);
            assert_eq!(root["type"], "object", "{branch}");
        }
    }

    #[test]
    fn all_of_merges() {
        let mut o = json!({"allOf":[{"properties":{"a":{}},"required":["a"]},{"properties":{"b":{}},"required":["b"],"type":"object"}]});
        let conflicts = merge_all_of(o.as_object_mut().unwrap());
        assert!(conflicts.is_empty());
        assert_eq!(o, json!({"properties":{"a":{},"b":{}},"required":["a","b"],"type":"object"}));
    }

    /// Keywords two `allOf` branches both set combine where one value says both (as a `$ref`'s
    /// siblings join its target): the stricter bound, the common values and types, `required`
    /// united, a `const` the `enum` has. Only what no one value says is a conflict.
    #[test]
    fn all_of_branches_combine_their_keywords() {
        for (branches, merged) in [
            (json!([{"type":"integer","minimum":1,"maximum":10},{"minimum":5}]), json!({"type":"integer","minimum":5,"maximum":10})),
            (json!([{"maximum":10,"exclusiveMinimum":0},{"maximum":3,"exclusiveMinimum":-1}]), json!({"maximum":3,"exclusiveMinimum":0})),
            (json!([{"enum":["a","b","c"]},{"enum":["d","c","b"]}]), json!({"enum":["b","c"]})),
            (json!([{"type":"string","maxLength":10,"minLength":1},{"maxLength":3,"minLength":2}]), json!({"type":"string","maxLength":3,"minLength":2})),
            (json!([{"type":["string","null"]},{"type":"string"}]), json!({"type":"string"})),
            (json!([{"type":"integer"},{"type":"number"}]), json!({"type":"integer"})),
            (json!([{"type":"array","maxItems":5,"uniqueItems":false},{"maxItems":2,"minItems":1,"uniqueItems":true}]), json!({"type":"array","maxItems":2,"uniqueItems":true,"minItems":1})),
            (json!([{"multipleOf":2},{"multipleOf":6}]), json!({"multipleOf":6})),
            (json!([{"enum":["a","b"]},{"const":"b"}]), json!({"const":"b"})),
            (json!([{"properties":{"a":{"maximum":9}},"required":["a"]},{"properties":{"a":{"maximum":4}},"required":["b"]}]), json!({"properties":{"a":{"maximum":4}},"required":["a","b"]})),
        ] {
            let mut o = json!({"allOf": branches});
            let conflicts = merge_all_of(o.as_object_mut().unwrap());
            assert!(conflicts.is_empty(), "{branches}: {conflicts:?}");
            assert_eq!(o, merged, "{branches}");
        }
        for (branches, conflict, kept) in [
            (json!([{"type":"string","pattern":"^a"},{"pattern":"b$"}]), "pattern", json!({"type":"string","pattern":"^a"})),
            (json!([{"format":"date"},{"format":"uri"}]), "format", json!({"format":"date"})),
            (json!([{"const":1},{"const":2}]), "const", json!({"const":1})),
            (json!([{"enum":["a"]},{"enum":["b"]}]), "enum", json!({"enum":["a"]})),
            (json!([{"type":"string"},{"type":"integer"}]), "type", json!({"type":"string"})),
            (json!([{"enum":["a"]},{"const":"b"}]), "const", json!({"enum":["a"],"const":"b"})),
            (json!([{"multipleOf":2},{"multipleOf":3}]), "multipleOf", json!({"multipleOf":2})),
            (json!([{"type":"string","title":"x"},{"title":"y"}]), "title", json!({"type":"string","title":"x"})),
            (json!([{"default":"x"},{"default":"y"}]), "default", json!({"default":"x"})),
        ] {
            let mut o = json!({"allOf": branches});
            assert_eq!(merge_all_of(o.as_object_mut().unwrap()), [conflict], "{branches}");
            assert_eq!(o, kept, "{branches}");
        }
        // A property two branches define: one schema, its bounds combined too.
        let (both, nested) = intersect(&json!({"type":"string","maxLength":10}), &json!({"maxLength":3,"enum":["ab","abc"]}));
        assert_eq!((both, nested), (json!({"type":"string","maxLength":3,"enum":["ab","abc"]}), false));
        let (both, _) = intersect(&json!({"const":"x"}), &json!({"enum":["x","y"]}));
        assert_eq!(both, json!({"const":"x"}));
        let (both, nested) = intersect(&json!({"const":"z"}), &json!({"enum":["x","y"]}));
        assert_eq!((both, nested), (json!({"allOf":[{"const":"z"},{"enum":["x","y"]}]}), true));
    }

    /// Where a schema that allows nothing is harmless it is not reported: a definition used only
    /// under `not` or not at all, one dead alternative of a union; a definition a property uses
    /// is said at the property. OpenAPI's `nullable` adds null.
    #[test]
    fn disjoint_values_are_said_where_they_bar_a_call() {
        assert_eq!(disjoint(json!({"properties": {"a": {"not": {"$ref": "#/$defs/Never"}}}, "$defs": {"Never": {"enum": []}}})), []);
        assert_eq!(disjoint(json!({"properties": {"a": {"type": "string"}}, "$defs": {"X": {"type": "number", "minimum": 3, "maximum": 1}}})), []);
        assert_eq!(disjoint(json!({"properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 10, "maximum": 5}]}}})), []);
        let used = disjoint(json!({"properties": {"a": {"$ref": "#/%24defs/Never"}}, "$defs": {"Never": {"enum": []}}}));
        assert_eq!(used.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(), ["/properties/a"], "{used:?}");
        assert_eq!(disjoint(json!({"properties": {"b": {"type": "integer", "nullable": true, "const": null}}})), []);
        assert_eq!(disjoint(json!({"properties": {"b": {"type": "integer", "nullable": false, "const": null}}})).len(), 1);
    }

    fn disjoint(schema: Value) -> Vec<(String, String)> {
        let mut cx = Cx::new(Limits::default());
        report_disjoint_values(&schema, &mut cx);
        assert!(cx.changes.is_empty() && cx.problems.iter().all(|d| d.rule == "schema/disjoint-values"), "{:?}", cx.problems);
        cx.problems.iter().map(|d| (d.path.clone(), d.message.clone())).collect()
    }

    /// A node that allows no value is a problem wherever it stands, not only where `allOf`
    /// makes it so: an empty `enum`, values none of which fits the type or bounds, bounds that
    /// leave no value of any allowed type, a required property whose schema is `false`.
    #[test]
    fn nodes_that_allow_no_value_are_problems() {
        let schema = json!({"type":"object","properties":{
            "empty":{"type":"string","enum":[]},
            "typed":{"type":"string","const":5},
            "values":{"type":"integer","enum":["1",2.5,null]},
            "long":{"type":"string","enum":["abcd"],"maxLength":3},
            "range":{"type":"integer","minimum":10,"maximum":5},
            "open":{"type":"number","exclusiveMinimum":5,"maximum":5},
            "narrow":{"type":"integer","exclusiveMinimum":1,"exclusiveMaximum":2},
            "text":{"type":"string","minLength":4,"maxLength":3},
            "list":{"type":"array","minItems":3,"maxItems":2,"items":{"type":"string","enum":[]}},
            "both":{"enum":["a"],"const":"b"},
            "gone":false,
            "fine":{"type":"integer","minimum":5,"maximum":5,"enum":[5,6]},
            "maybe":{"type":["integer","null"],"minimum":10,"maximum":5},
            "untyped":{"minimum":10,"maximum":5},
            "forbidden":false,
            "map":{"type":"object","additionalProperties":{"enum":[]},"not":{"enum":[]},"if":{"type":"string","minLength":3,"maxLength":1},"then":true}},
            "required":["gone","fine"]});
        let found = disjoint(schema);
        let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/properties/gone",
                "/properties/empty",
                "/properties/typed",
                "/properties/values",
                "/properties/long",
                "/properties/range",
                "/properties/open",
                "/properties/narrow",
                "/properties/text",
                "/properties/list",
                "/properties/list/items",
                "/properties/both"
            ],
            "{found:?}"
        );
        assert!(found[1].1.contains("its `enum` is empty"), "{found:?}");
        assert!(found[5].1.contains("`minimum`: 10, `maximum`: 5"), "{found:?}");
        assert!(found[0].1.contains("required property whose schema is `false`"), "{found:?}");
        // With `allOf`, the node's limits and its branches' together.
        let found = disjoint(json!({"type":"object","properties":{"n":{"type":"integer","allOf":[{"minimum":10},{"maximum":5}]},"m":{"allOf":[{"type":"string"},{"enum":[1]}]}}}));
        assert_eq!(found.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(), ["/properties/n", "/properties/m"], "{found:?}");
        assert!(found[0].1.contains("`allOf` branches"), "{found:?}");
        // The root's `allOf` is merged (and reported) as a root combinator; the root's own
        // limits are its own.
        assert!(disjoint(json!({"type":"object","allOf":[{"minProperties":3},{"maxProperties":1}]})).is_empty());
        assert_eq!(disjoint(json!({"type":"object","minProperties":3,"maxProperties":1}))[0].0, "");
    }

    /// Definitions a root union's property already has are known by their hash: equal ones
    /// (keys in any order) hash alike, so a repeated definition is not added twice.
    #[test]
    fn repeated_alternatives_are_added_once() {
        let a: Value = serde_json::from_str(r#"{"type":"string","pattern":"^a"}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"pattern":"^a","type":"string"}"#).unwrap();
        assert_eq!(value_hash(&a), value_hash(&b));
        assert_ne!(value_hash(&a), value_hash(&json!({"type":"string","pattern":"^b"})));
        let mut root = json!({"anyOf":[{"properties":{"v":{"type":"integer"}}},{"properties":{"v":a}},{"properties":{"v":{"type":"integer"}}},{"properties":{"v":b}},{"properties":{"v":{"type":"boolean"}}}]});
        merge_root_combinators(root.as_object_mut().unwrap(), &mut Cx::new(Limits::default()));
        assert_eq!(root["properties"]["v"], json!({"anyOf":[{"type":"integer"},{"type":"string","pattern":"^a"},{"type":"boolean"}]}));
    }

    /// Thousands of root `allOf` branches with a description each: each joined to the root's
    /// in proportion to its own length (each was searched for in the text joined so far, which
    /// was copied to add it), to the same text as joining them one by one: a branch's
    /// description once, where the text holds it, trimmed, after the root's.
    #[test]
    fn many_all_of_descriptions_join_in_linear_time() {
        let descriptions = ["a", " a b ", "b", "", "  ", "c\n", "b c", "é"];
        let run = |n: usize, wide: bool, root: Option<&str>| {
            let branches: Vec<Value> = (0..n)
                .map(|i| match wide {
                    true => json!({"description": format!("branch {i}"), "properties": {format!("p{i}"): {"type": "string"}}}),
                    false => json!({"description": descriptions[i % descriptions.len()], "title": "T"}),
                })
                .collect();
            let mut o = json!({"type": "object", "allOf": branches}).as_object().cloned().unwrap();
            if let Some(d) = root {
                o.insert("description".into(), json!(d));
            }
            let before = crate::model::NAME_STEPS.with(|s| s.get());
            merge_root_combinators(&mut o, &mut Cx::new(Limits::default()));
            (crate::model::NAME_STEPS.with(|s| s.get()) - before, o)
        };
        let (small, large) = (run(2_000, true, Some("root")).0, run(8_000, true, Some("root")).0);
        assert!(large <= 5 * small, "{small} then {large} steps for 4 times the branches");
        for root in [None, Some("root "), Some(" a"), Some("")] {
            let (_, o) = run(30, false, root);
            let mut want: Option<String> = root.map(str::to_owned);
            for d in (0..30).map(|i| descriptions[i % descriptions.len()]).filter(|d| !d.trim().is_empty()) {
                want = Some(match want {
                    Some(w) if w.contains(d.trim()) => w,
                    Some(w) => format!("{} {}", w.trim_end(), d.trim()),
                    None => d.trim().to_owned(),
                });
            }
            assert_eq!(o.get("description").and_then(Value::as_str), want.as_deref(), "{root:?}");
        }
    }

    /// A nested `allOf` of thousands of branches with a description each: each joined to the
    /// node's in proportion to its own length (each was searched for in the text joined so far,
    /// which was copied to add it: 16 times the bytes for 4 times the branches), to the same
    /// text as joining them one by one: the first as given where the node has none, then each
    /// branch's once, where the text holds it, trimmed, after the text so far.
    #[test]
    fn many_nested_all_of_descriptions_join_in_linear_time() {
        let descriptions = ["  ", "a", " a b ", "b", "", "c\n", "b c", "é", "a b"];
        let run = |n: usize, wide: bool, node: Option<&str>| {
            let branches: Vec<Value> = (0..n)
                .map(|i| match wide {
                    true => json!({"type": "string", "minLength": i, "description": format!("branch {i}")}),
                    false => json!({"description": descriptions[i % descriptions.len()]}),
                })
                .collect();
            let mut o = json!({"allOf": branches}).as_object().cloned().unwrap();
            if let Some(d) = node {
                o.insert("description".into(), json!(d));
            }
            let work = || crate::model::NAME_STEPS.with(|s| s.get()) + crate::schema::DESCRIPTION_BYTES.with(|b| b.get());
            let before = work();
            merge_all_of(&mut o);
            (work() - before, o)
        };
        let (small, large) = (run(2_000, true, Some("node")).0, run(8_000, true, Some("node")).0);
        assert!(large <= 5 * small, "{small} then {large} steps and bytes for 4 times the branches");
        for node in [None, Some("node "), Some(" a"), Some("")] {
            let (_, o) = run(31, false, node);
            let mut want: Option<String> = node.map(str::to_owned);
            for d in (0..31).map(|i| descriptions[i % descriptions.len()]) {
                want = Some(match want {
                    None => d.to_owned(),
                    Some(w) if d.trim().is_empty() || w.contains(d.trim()) => w,
                    Some(w) => format!("{} {}", w.trim_end(), d.trim()),
                });
            }
            assert_eq!(o.get("description").and_then(Value::as_str), want.as_deref(), "{node:?}");
        }
    }

    /// Thousands of `allOf` branches that each require a name: each name is looked up once
    /// (a set built once and kept), where rebuilding the set of the names so far for each
    /// branch took 16 times the work for 4 times the branches (5 s for 8,000 in the package).
    /// At the root and below it, the names in the order given.
    #[test]
    fn many_all_of_branches_join_their_required_in_linear_time() {
        let branches = |n: usize, props: bool| -> Value {
            Value::Array((0..n).map(|i| if props { json!({"properties": {format!("p{i}"): {}}, "required": [format!("p{i}"), "p0"]}) } else { json!({"required": [format!("p{i}")]}) }).collect())
        };
        let steps = |n: usize, props: bool, root: bool| {
            let mut o = json!({"type": "object", "properties": {}, "required": ["p1", "p1"], "allOf": branches(n, props)}).as_object().cloned().unwrap();
            let before = crate::model::NAME_STEPS.with(|s| s.get());
            if root {
                merge_root_combinators(&mut o, &mut Cx::new(Limits::default()));
            } else {
                assert!(merge_all_of(&mut o).is_empty());
            }
            let steps = crate::model::NAME_STEPS.with(|s| s.get()) - before;
            let names: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
            let mut want = vec!["p1".to_owned()];
            want.extend(names.iter().filter(|p| *p != "p1").cloned());
            let got: Vec<&str> = o["required"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
            // The node's own list (its name twice is left to `fix_required`), then each
            // branch's names not in it yet.
            let own = got.iter().take_while(|r| **r == "p1").count();
            assert!((1..=2).contains(&own) && got[own..] == want[1..], "root: {root}: {:?}", &got[..4]);
            steps
        };
        for props in [false, true] {
            for root in [true, false] {
                let (small, large) = (steps(2_000, props, root), steps(8_000, props, root));
                assert!(large <= 5 * small, "{small} then {large} steps for 4 times the branches (root: {root}, properties: {props})");
            }
        }
    }
}
