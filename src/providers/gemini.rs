//! Google Gemini (`parameters`, the OpenAPI-3.0 subset) and Vertex AI, plus the
//! `parametersJsonSchema` mode.
//!
//! `parameters` steps, in order (each node is rebuilt from an allow-list, so nothing unknown
//! can leak through; see `../shared/docs/providers.md` §1.4a for every rule's source):
//! 1. Root combinators merged into one object.
//! 2. `$ref`s inlined, including `#/properties/...` pointers; recursion unrolled twice, then cut
//!    to a described open object.
//! 3. Per node: boolean schemas keep their meaning (`true` → any value, `false` → the property
//!    is removed and reported); `allOf` merged; keyword values of the wrong kind (`maximum:
//!    null`, `maxLength: -1`, `pattern: 5`) removed as for every provider
//!    (`schema/bad-keyword-value`), draft 4's boolean bounds read as numbers first; `oneOf` read
//!    as `anyOf`; `const` → a one-value `enum`.
//! 4. One `type`: `null` in a type array or an `anyOf` branch becomes `nullable: true`; several
//!    remaining types become `anyOf` branches; a single remaining branch is merged into its
//!    node; a node never has both `type` and `anyOf` (the keywords beside an `anyOf` that
//!    constrain some types, `minimum`, `maxLength`..., go into the branches of those types, as
//!    a type array's do; an `enum` as the values of each branch's types; a branch without a
//!    type has all of the node's; a `type` beside the `anyOf` narrows each branch to the
//!    types it shares with it, a branch of none of them removed). A node that allows `null` only has no
//!    form (no NULL type): a nullable string described as null, reported (`gemini/null-only`).
//! 5. A missing `type` is inferred (`properties` → object, `items` → array, `enum`/`pattern` →
//!    string, `minimum` → number); a node with nothing to infer from accepts any value
//!    (`anyOf` of string, number, boolean, object, and an array of those, all `nullable`).
//! 6. Objects: properties lowered (names are never read as keywords; a name outside what Gemini
//!    documents, `^[A-Za-z_][A-Za-z0-9_]{0,63}$`, is kept and is a `gemini/property-name`
//!    problem: see [`crate::providers::keys`]); `required` names only
//!    existing properties; an empty `properties` is omitted; `properties`/`required` appear on
//!    objects only.
//! 7. Arrays: `items` always present with a concrete type (nested arrays too). A tuple's
//!    `unevaluatedItems` is read as its `items` where the tuple is all the other keywords
//!    evaluate (`schema::evaluated`); a closed tuple has at most as many items as it lists
//!    (`gemini/closed-tuple`: Gemini has no tuples), and where what it closes depends on the
//!    array (`contains`, differing branches) the loss is reported (`gemini/closed-tuple`). A
//!    tuple's `items` is `anyOf` its positions' schemas; arguments are mapped back position by
//!    position, each by its own schema's plan (`ArgPlan::prefix_items`).
//! 8. Enums: every value as a string, the node typed `string`; a `null` among them makes the
//!    node `nullable`; values that were not strings are remembered so `prepareArguments` turns
//!    `"16"` back into `16`.
//! 9. `format`: strings keep `enum`/`date-time`, numbers `float`/`double`, integers
//!    `int32`/`int64`; other formats are removed.
//! 10. Every other keyword (`additionalProperties`, `$schema`, `exclusiveMinimum`, `uniqueItems`,
//!     `x-*`...) is removed; what carried meaning is folded into the description
//!     ("format: uri", "must be > 0").
//! 11. Vertex only: a node with `anyOf` has no other field (its description and nullability
//!     move into the branches).
//! 12. A root without properties is omitted (`parameters` absent): Gemini rejects an empty
//!     `properties`.
//! 13. On the wire ([`to_wire`] on a declaration built as a value, `write_wire` on one
//!     written as text): `type` in the canonical enum spelling (`OBJECT`, `STRING`...) and the
//!     int64 counts (`minItems`, `maxLength`...) as decimal strings, as the proto JSON mapping
//!     and Google's SDK types have them. A count past `i64::MAX` is no int64: a maximum there
//!     is removed (`schema/bad-keyword-value`), a minimum sent as `i64::MAX` and reported
//!     (`schema/disjoint-values`), on every path alike (`int64_counts`, in step 3).
//!
//! When the caller needs no change log (the JSON API), a `$ref` target used in several places
//! is expanded, lowered and written once and spliced in everywhere else
//! ([`crate::schema::refs::Shared`]): the same text, without rewriting every copy.
//!
//! `parametersJsonSchema` steps: root combinators merged; `$ref`s inlined (Gemini rejects
//! `$ref` with siblings and unresolved `$defs` in `anyOf`); structure fixed ([`super::fix_structure`]).
//! Everything else is JSON Schema that Gemini takes as is.

use std::collections::hash_map::{Entry, HashMap};

use serde_json::{Map, Value};

use crate::args::{enum_string, ArgPlan, Fit};
use crate::error::Result;
use crate::model::{object, string, JsonObject, Keyed as _, NameSet, Put as _, Take as _};
use crate::providers::{fix_root_structure, Compiled, GeminiMode, SchemaOptions};
use crate::schema::lower::{const_as_enum, is_object_node, keyword_hint, one_of_described_as_any_of, merge_all_of, merge_root_combinators, take_unrequired_contains, types_of};
use crate::schema::evaluated::{evaluated_items, Evaluated};
use crate::schema::refs::{inline_refs_shared, Shared};
use crate::schema::walk::contains_ref;
use crate::schema::{append_description, Cx};
use crate::text::Owned as _;

/// The keys of Gemini's `Schema` (js-genai `types.ts`).
pub const ALLOWED_KEYS: &[&str] = &[
    "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required",
    "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
    "default", "items", "minimum", "maximum",
];

const TYPES: &[&str] = &["string", "number", "integer", "boolean", "array", "object"];

/// The int64 fields of Gemini's `Schema` (decimal strings on the wire: [`to_wire`]).
const COUNTS: [&str; 6] = ["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"];

// Shared `$ref` expansions are written once and spliced in wherever they are used, which is
// the same text as long as [`write_wire`]'s own depth bound (256) is never reached: the depth
// limit in force stays below it.
const _: () = assert!(crate::schema::Limits::DEPTH_CEILING < 256);

/// Compiles for Gemini (`vertex` adds the anyOf-stands-alone rule).
pub fn compile(mut root: Value, opts: &SchemaOptions, vertex: bool, cx: &mut Cx) -> Result<Compiled> {
    if let Value::Object(obj) = &mut root {
        merge_root_combinators(obj, cx);
    }
    // Arguments as an open map (no declared property, any name allowed): `parameters` has no
    // way to say so, and without properties it is omitted, so the model could pass none.
    let open_root = opts.gemini_mode == GeminiMode::Parameters
        && root.get("properties").and_then(Value::as_object).is_none_or(Map::is_empty)
        && (root.get("patternProperties").is_some() || root.get("additionalProperties").is_some_and(|a| *a != Value::Bool(false)));
    if contains_ref(&root, 0) {
        // `parameters` is written by [`write_wire`], `parametersJsonSchema` by
        // `refs::write_schema`; both splice shared expansions in.
        root = inline_refs_shared(&root, cx)?;
    }
    // An `enum` or `const` of whole argument objects: Gemini takes `enum` on strings only, and
    // lowering would make the root one (dropping its properties). The properties are kept.
    if let (GeminiMode::Parameters, Value::Object(obj)) = (opts.gemini_mode, &mut root) {
        for key in ["enum", "const"] {
            if obj.take(key).is_some() {
                cx.problem("gemini/root-enum", format!("`{key}` on the root (whole argument objects) cannot be said in Gemini's `parameters` (enums are of strings): removed, the properties kept"));
            }
        }
    }
    if opts.gemini_mode == GeminiMode::JsonSchema {
        fix_root_structure(&mut root, cx)?;
        cx.reset_budget();
        return Ok(Compiled { schema: Some(root), strict: None, plan: ArgPlan::default(), relaxed: None });
    }
    // Without a change log (shared expansions), from a borrowed tree when the schema allows.
    if let Some(shared) = cx.shared.as_deref() {
        if let Some(parameters) = crate::fast::lower_inlined(&root, shared, opts, vertex) {
            cx.reset_budget();
            let schema = parameters.map(|text| Shared::written(&crate::text::into_string(text)));
            return Ok(Compiled { schema, strict: None, plan: ArgPlan::default(), relaxed: None });
        }
    }
    let lowered = lower(root, cx, vertex)?;
    cx.reset_budget();
    let (mut schema, plan) = match lowered {
        Lowered::Schema(s, p) => (s, p),
        Lowered::Never => (object([("type", string("object"))]), ArgPlan::default()),
    };
    if let Value::Object(o) = &mut schema {
        // The root is an object by construction; make sure of it for the provider.
        if !o.find("type").is_some_and(|t| *t == "object") {
            o.take("anyOf");
            o.put("type", string("object"));
        }
        o.take("nullable");
        let empty = o.find("properties").and_then(Value::as_object).is_none_or(Map::is_empty);
        if empty && o.keys().all(|k| k == "type" || k == "description" || k == "title") {
            if open_root {
                // The root's map, "removed and described": the description goes with `parameters`,
                // and the problem says what became of the map.
                cx.changes.retain(|d| !(d.path.is_empty() && d.message.contains("removed and described")));
                cx.problem(
                    "gemini/open-root",
                    "the tool's arguments are an open map (any names), which Gemini's `parameters` cannot declare: sent without parameters, so the model can pass none (geminiMode \"parametersJsonSchema\" keeps the map)",
                );
            } else if o.has("description") {
                cx.change("gemini/empty-root", "the tool takes no arguments: `parameters` omitted (its description was the schema's only content)");
            }
            return Ok(Compiled { schema: None, strict: None, plan, relaxed: None });
        }
    }
    Ok(Compiled { schema: Some(schema), strict: None, plan, relaxed: None })
}

/// Step 13: the canonical wire spelling of a lowered `parameters` schema.
pub fn to_wire(schema: &mut Value) {
    to_wire_at(schema, 0);
}

fn to_wire_at(schema: &mut Value, depth: usize) {
    let Value::Object(o) = schema else { return };
    if depth > 256 {
        return;
    }
    // One pass over the keys (no lookup per keyword).
    for (key, v) in o.iter_mut() {
        match key.as_str() {
            "type" => {
                if let Value::String(t) = v {
                    t.make_ascii_uppercase();
                }
            }
            "minItems" | "maxItems" | "minLength" | "maxLength" | "minProperties" | "maxProperties" => {
                if let Some(n) = v.as_u64() {
                    *v = Value::String(n.to_string());
                }
            }
            "properties" => {
                if let Value::Object(props) = v {
                    for p in props.values_mut() {
                        to_wire_at(p, depth + 1);
                    }
                }
            }
            "items" => to_wire_at(v, depth + 1),
            "anyOf" => {
                if let Value::Array(branches) = v {
                    for b in branches {
                        to_wire_at(b, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Writes a lowered `parameters` schema in its wire spelling: [`to_wire`] and
/// `text::write_value` in one pass, byte for byte what they write together, without rewriting
/// the tree first (a count becomes a string only in the text).
pub(crate) fn write_wire(out: &mut Vec<u8>, schema: &Value) {
    write_wire_at(out, schema, 0);
}

fn write_wire_at(out: &mut Vec<u8>, schema: &Value, depth: usize) {
    use crate::text::{write_number, write_object, write_str, write_value};
    let Value::Object(o) = schema else { return write_value(out, schema) };
    if depth > 256 {
        return write_value(out, schema);
    }
    if let Some(text) = Shared::written_text(o) {
        out.extend_from_slice(text.as_bytes());
        return;
    }
    write_object(out, o, |out, key, v| match (key, v) {
        ("type", Value::String(t)) => {
            if t.bytes().all(|b| b.is_ascii_alphanumeric()) {
                out.push(b'"');
                out.extend(t.bytes().map(|b| b.to_ascii_uppercase()));
                out.push(b'"');
            } else {
                write_str(out, &t.to_ascii_uppercase());
            }
        }
        ("minItems" | "maxItems" | "minLength" | "maxLength" | "minProperties" | "maxProperties", Value::Number(n)) if n.is_u64() => {
            out.push(b'"');
            write_number(out, n);
            out.push(b'"');
        }
        ("properties", Value::Object(props)) => write_object(out, props, |out, _, p| write_wire_at(out, p, depth + 1)),
        ("items", _) => write_wire_at(out, v, depth + 1),
        ("anyOf", Value::Array(branches)) => {
            out.push(b'[');
            for (j, b) in branches.iter().enumerate() {
                if j > 0 {
                    out.push(b',');
                }
                write_wire_at(out, b, depth + 1);
            }
            out.push(b']');
        }
        _ => write_value(out, v),
    });
}

/// A lowered node, or "no value is valid" (a `false` schema). Only ever returned, never
/// stored: `Never` is rare, and boxing the common variant would allocate per node.
#[allow(clippy::large_enum_variant)]
enum Lowered {
    Schema(Value, ArgPlan),
    Never,
}

/// Adds `t` to `types` if it is one of the subset's types (as its constant), or notes `null`.
fn subset_type(t: &str, types: &mut Vec<&'static str>, has_null: &mut bool) {
    if t == "null" {
        *has_null = true;
    } else if let Some(known) = TYPES.iter().find(|k| **k == t) {
        types.push(known);
    }
}

/// A schema that accepts any value, in the subset (which has no "anything"): `anyOf` of the
/// concrete types, an array among them, of any of the others (a list of lists is left out:
/// the nesting has to end somewhere), and `null` (`nullable`: any value includes it). Written
/// as the lowering writes a nullable union: `nullable` beside the `anyOf`, or for Vertex, where
/// an `anyOf` stands alone, on each branch.
fn any_value(vertex: bool) -> Value {
    let union = |branches: Vec<Value>| -> Value {
        if vertex {
            let branches = branches
                .into_iter()
                .map(|mut b| {
                    if let Value::Object(o) = &mut b {
                        o.put("nullable", Value::Bool(true));
                    }
                    b
                })
                .collect();
            object([("anyOf", Value::Array(branches))])
        } else {
            object([("anyOf", Value::Array(branches)), ("nullable", Value::Bool(true))])
        }
    };
    let scalars = || ["string", "number", "boolean", "object"].map(|t| object([("type", string(t))])).to_vec();
    let mut branches = scalars();
    branches.push(object([("type", string("array")), ("items", union(scalars()))]));
    union(branches)
}

/// The lowering of one subschema, for a caller that writes it with [`write_wire`] where the
/// lowering of the whole schema would have it: `None` unless it accepts some value and, where
/// the caller keeps `plans`, needs no argument plan.
pub(crate) fn lower_subschema(node: Value, cx: &mut Cx, vertex: bool, plans: bool) -> Option<Value> {
    match lower(node, cx, vertex) {
        Ok(Lowered::Schema(s, plan)) if !plans || plan.is_empty() => Some(s),
        _ => None,
    }
}

/// Lowers one schema (on the recursion's path, as [`lower_object`]: what else a schema can be is
/// lowered in [`lower_non_object`]).
fn lower(node: Value, cx: &mut Cx, vertex: bool) -> Result<Lowered> {
    match node {
        Value::Object(o) => {
            if let Some(i) = cx.shared.as_ref().and(Shared::placeholder(&o)) {
                return lower_shared(i, cx, vertex);
            }
            cx.enter()?;
            let r = lower_object(o, cx, vertex);
            cx.leave();
            r
        }
        other => Ok(lower_non_object(other, cx, vertex)),
    }
}

/// Lowers a schema that is no object.
#[inline(never)]
fn lower_non_object(node: Value, cx: &mut Cx, vertex: bool) -> Lowered {
    match node {
        Value::Bool(false) => Lowered::Never,
        // `true` accepts any value, as `{}` does (and is said as that is).
        Value::Bool(true) => {
            cx.change("gemini/any", "schema `true` (any value): any of string, number, boolean, object, array, or null");
            Lowered::Schema(any_value(vertex), ArgPlan::default())
        }
        // What is no schema (`properties: {type: "object"}`) is taken as any value, as the
        // other providers' `fix_structure` takes it, and said so.
        other => {
            cx.change("schema/bad-property-schema", format!("schema was {}; replaced by any value", crate::model::json_type(&other)));
            Lowered::Schema(any_value(vertex), ArgPlan::default())
        }
    }
}

/// Lowers shared expansion `i` (see [`Shared::rewrite`]).
#[inline(never)]
fn lower_shared(i: usize, cx: &mut Cx, vertex: bool) -> Result<Lowered> {
    let lowered = Shared::rewrite(
        cx,
        i,
        &mut |expanded, cx| {
            Ok(match lower(expanded, cx, vertex)? {
                Lowered::Schema(s, plan) => (Some(s), plan),
                Lowered::Never => (None, ArgPlan::default()),
            })
        },
        write_wire,
    )?;
    Ok(match lowered {
        (Some(s), plan) => Lowered::Schema(s, plan),
        (None, _) => Lowered::Never,
    })
}

/// Collected hints for dropped keywords, folded into the description at the end.
struct Hints(Vec<String>);

impl Hints {
    fn drop(&mut self, cx: &mut Cx, key: &str, v: &Value) {
        match keyword_hint(key, v) {
            Some(h) => {
                cx.change("gemini/strip-keyword", format!("`{key}` is not supported by Gemini; removed and described ({h})"));
                self.0.push(h);
            }
            None => cx.change("gemini/strip-keyword", format!("`{key}` is not supported by Gemini; removed")),
        }
    }
}

/// What [`prepare_object`] leaves [`lower_object`] to do. Only ever returned, as [`Lowered`]:
/// `Keys` is the common variant, and boxing it would allocate per node.
#[allow(clippy::large_enum_variant)]
enum Prepared {
    /// The node is lowered.
    Done(Lowered),
    /// Its one `anyOf` branch merged into it: lowered as the node.
    Merged(JsonObject),
    /// A union: the keywords beside it, its branches, the node's types, and whether it is nullable.
    AnyOf(JsonObject, Vec<Value>, Vec<&'static str>, bool),
    /// A node of one type, and the keys left to lower (steps 6-10).
    Keys(Node, JsonObject),
}

/// Lowers one object schema. Every schema level passes through here and [`lower`], and through
/// [`Node::properties`], [`Node::items`] or [`lower_any_of`] to the next: what takes no part in
/// the recursion is in functions of its own ([`prepare_object`], [`Node::keyword`],
/// [`Node::finish`]...), so that these frames stay small on the engine's stack, which the module
/// shares with its caller. Compiled by V8's TurboFan, one frame that held all of it took 4 KB a
/// level, and a schema nested 127 levels deep (as `maxDepth` allows) overflowed a 500 KB stack.
fn lower_object(o: JsonObject, cx: &mut Cx, vertex: bool) -> Result<Lowered> {
    match prepare_object(o, cx, vertex) {
        Prepared::Done(lowered) => Ok(lowered),
        Prepared::Merged(merged) => lower_object(merged, cx, vertex),
        Prepared::AnyOf(shared, branches, types, nullable) => lower_any_of(shared, branches, types, nullable, cx, vertex),
        Prepared::Keys(mut node, keys) => {
            // Steps 6-10, key by key, from the allow-list.
            for (key, value) in keys {
                match key.as_str() {
                    "properties" if node.ty == "object" => {
                        if let Value::Object(props) = value {
                            node.properties(props, cx, vertex)?;
                        }
                    }
                    "items" if node.ty == "array" => node.items(value, cx, vertex)?,
                    _ => node.keyword(key, value, cx),
                }
            }
            Ok(node.finish(cx, vertex))
        }
    }
}

/// A node of one type as its keys are lowered into `out`.
struct Node {
    /// Its type (`string` for an enum).
    ty: &'static str,
    /// Its declared (or inferred) type.
    declared: &'static str,
    out: JsonObject,
    plan: ArgPlan,
    hints: Hints,
    nullable: bool,
    /// A tuple's leading items (`prefixItems` beside `items`).
    prefix: Option<Vec<Value>>,
    /// The `additionalItems` of draft 4's `items: [..]`.
    additional: Option<Value>,
    /// A closed tuple's length.
    closed_at: Option<usize>,
    /// The node's own `example`, beside its `examples`.
    example: Option<Value>,
}

/// Lowers the node up to its keys: steps 3-5 (the union, several types or no type are lowered
/// by [`lower_any_of`], a single `anyOf` branch merged into the node by [`lower_object`]).
#[inline(never)]
fn prepare_object(mut o: JsonObject, cx: &mut Cx, vertex: bool) -> Prepared {
    let mut hints = Hints(Vec::new());
    crate::schema::normalize_type(&mut o, cx);
    // What an `unevaluatedItems` is left to limit, read before `allOf` is merged (merging keeps
    // one branch's tuple where they differ).
    let evaluated = (o.has("unevaluatedItems") && !o.has("items")).then(|| evaluated_items(&o, None));
    // Step 3.
    if o.has("allOf") {
        let conflicts = merge_all_of(&mut o);
        cx.change("gemini/allof", "allOf merged into one schema");
        for k in conflicts {
            // Two `title`s lose an annotation alone, which nothing rejects: a change.
            match k.as_str() {
                "title" => cx.change("gemini/allof", "allOf branches disagree on `title`; the first value is kept"),
                _ => cx.problem("gemini/allof-conflict", format!("allOf branches disagree on `{k}`; the first value is kept")),
            }
        }
    }
    // Draft 3's `required: true` on a property goes into this object's `required`, as for every
    // other provider (`fix_structure`; the root's is lifted there): left on the property, it
    // would be removed as a keyword of a node that is no object.
    if is_object_node(&o) {
        crate::schema::lift_draft3_required(&mut o, cx);
    }
    // Keyword values of the wrong kind (`maximum: null`, `maxLength: -1`, `pattern: 5`,
    // `multipleOf: 0`) are removed and reported as for every other provider
    // (`schema/bad-keyword-value`), not described to the model as keywords Gemini lacks; draft
    // 4's boolean bounds are read first, as numbers, and a tuple no draft reads (`items: []`,
    // `items: [..]` beside `prefixItems`) is removed, as for every other provider (Gemini reads
    // draft 4's tuples itself). A count written `2.0` is the integer 2, which Gemini's int64
    // fields take.
    crate::schema::remove_unread_tuples(&mut o, cx);
    crate::schema::normalize_draft4_bounds(&mut o, cx);
    crate::schema::fix_keyword_values(&mut o, cx);
    // Only a number that is no u64 up to i64::MAX can be changed here: one look at the values
    // spares the twelve key lookups below on nearly every node.
    if o.values().any(|v| v.is_number() && v.as_u64().is_none_or(|n| n > i64::MAX as u64)) {
        for key in COUNTS {
            if let Some(v) = o.find_mut(key).filter(|v| !v.is_u64()) {
                if let Some(n) = v.as_f64().filter(|f| *f < 2f64.powi(63)) {
                    *v = Value::from(n as u64);
                }
            }
        }
        int64_counts(&mut o, cx);
    }
    one_of_described_as_any_of(&mut o, cx, ["gemini/oneof", "gemini/oneof-beside-anyof"], "", "Gemini's schema has no allOf");
    // The node's own types, before narrowing may move them into the branches: `properties` on a
    // node whose `type` leaves out object constrain nothing and go into no branch.
    let own_types_take_objects = {
        let own = types_of(&o);
        own.is_empty() || own.contains(&"object")
    };
    // A `type` beside the union narrows its branches (before an object's properties go into
    // them, which removes the object's `type`).
    if o.has("anyOf") && narrow_branches(&mut o, cx) {
        cx.problem("gemini/no-valid-branch", "no branch of the anyOf has a type the node's `type` allows: no value can be valid; the property is removed");
        return Prepared::Done(Lowered::Never);
    }
    // Step 7's tuples: an `unevaluatedItems` beside them, where it says what `items` would, on
    // a node that is an array (declared, or inferred where no branch or enum decides the type).
    let declared = types_of(&o);
    let array = declared.contains(&"array") || (declared.is_empty() && !o.has("anyOf") && infer_type(&o) == Some("array"));
    if let Some(evaluated) = evaluated.filter(|_| array && !o.has("enum") && !o.has("const") && !o.has("items")) {
        unevaluated_items(&mut o, evaluated, cx);
    }
    // An object with an anyOf: its own properties go into the branches, which Gemini takes as
    // they are (merging them into the object, as the root's must be, would keep only what every
    // branch requires, and one branch's enum for a property another leaves open).
    let object_like = types_of(&o).contains(&"object") || (o.has("properties") && own_types_take_objects);
    if object_like && (o.has("anyOf") || o.has("oneOf")) {
        distribute_into_branches(&mut o, cx);
    } else if o.has("properties") && (o.has("anyOf") || o.has("oneOf")) {
        for key in ["properties", "required"] {
            if o.take(key).is_some() {
                cx.change("gemini/not-object", format!("`{key}` on a node whose `type` is not object has no effect; removed (Gemini allows it on objects only)"));
            }
        }
    }
    const_as_enum(&mut o, cx, "gemini/const", "");
    // An enum of null alone: no string is left for Gemini's enum (it has no empty one).
    if o.find("enum").and_then(Value::as_array).is_some_and(|e| !e.is_empty() && e.iter().all(Value::is_null)) {
        return Prepared::Done(only_null(&o, cx));
    }
    // Step 4: null handling and type arrays.
    let mut nullable = o.take("nullable") == Some(Value::Bool(true));
    // The node's types as the subset's own constants (no allocation per node); `null` and
    // names outside JSON Schema's types (already reported by normalize_type) are not kept.
    let mut types: Vec<&'static str> = Vec::new();
    let mut has_null = false;
    match o.take("type") {
        Some(Value::String(t)) => subset_type(&t, &mut types, &mut has_null),
        Some(Value::Array(ts)) => {
            for t in &ts {
                if let Value::String(t) = t {
                    subset_type(t, &mut types, &mut has_null);
                }
            }
        }
        _ => {}
    }
    // An enum (or const, an enum by now) without null leaves null out whatever the `type` or a
    // `null` branch allow: made nullable, the node would take a null the tool refuses.
    let enum_without_null = o.find("enum").and_then(Value::as_array).is_some_and(|e| !e.iter().any(Value::is_null));
    if has_null && enum_without_null && !types.is_empty() {
        has_null = false;
        cx.change("gemini/enum-type", "`null` in `type` not expressed: the enum does not list null, so no value can be null");
    }
    if has_null {
        nullable = true;
        cx.change("gemini/nullable", "`null` type expressed as nullable: true");
    }
    if let Some(Value::Array(branches)) = o.take("anyOf") {
        let before = branches.len();
        let mut kept: Vec<Value> = branches.into_iter().filter(|b| !is_null_schema(b)).collect();
        let mut null_branch = kept.len() < before;
        if null_branch && enum_without_null && !kept.is_empty() {
            null_branch = false;
            cx.change("gemini/enum-type", "`null` branch of anyOf not expressed: the enum does not list null, so no value can be null");
        } else if null_branch {
            nullable = true;
            cx.change("gemini/nullable", "`null` branch of anyOf expressed as nullable: true");
        }
        if kept.len() == 1 && types.len() <= 1 {
            // Merge the single branch into this node (the node's own keys win).
            if let Some(Value::Object(b)) = kept.pop() {
                // A description on both (Pydantic's described `Optional[Model]`): the node's,
                // then the branch's, as a union's description is joined to its alternatives'.
                let joined = match (o.find("description"), b.find("description")) {
                    (Some(Value::String(n)), Some(Value::String(d))) => Some(joined_description(n, d)),
                    _ => None,
                };
                let mut merged = b;
                for (k, v) in std::mem::take(&mut o) {
                    merged.insert(k, v);
                }
                if let Some(j) = joined {
                    merged.put("description", Value::String(j));
                }
                // The branch's type, narrowed to the node's (`narrow_branches`: an integer
                // branch of a number stays an integer), else the node's.
                let narrowed = merged.has("type") && types_of(&merged).iter().all(|t| crate::schema::TYPE_NAMES.contains(t));
                if let (Some(t), false) = (types.first(), narrowed) {
                    merged.put("type", Value::String((*t).into()));
                }
                if nullable {
                    merged.put("nullable", Value::Bool(true));
                }
                // A `null` branch beside a branch that is a typed union itself: `null` is the
                // other alternative, which the merged union's own narrowing must not take for
                // a null its branches refuse (it would remove it): one of its branches again.
                if null_branch && merged.has("type") {
                    let union = if merged.has("anyOf") { "anyOf" } else { "oneOf" };
                    if let Some(Value::Array(inner)) = merged.get_mut(union) {
                        if !inner.iter().any(is_null_schema) {
                            inner.push(object([("type", string("null"))]));
                        }
                    }
                }
                return Prepared::Merged(merged);
            }
            kept.push(Value::Bool(true));
        }
        if kept.is_empty() {
            return Prepared::Done(only_null(&o, cx));
        }
        return Prepared::AnyOf(o, kept, types, nullable);
    }
    if has_null && types.is_empty() {
        return Prepared::Done(only_null(&o, cx));
    }
    if types.len() > 1 {
        // Several types: one branch per type, each with the keywords that apply to it (an
        // enum's values of that type: a type none of them has allows no value, and goes).
        let branches = types.iter().map(|t| branch_for_type(&o, t)).collect();
        cx.change("gemini/type-array", format!("type [{}] expressed as anyOf", types.join(", ")));
        if let Some(Value::Array(values)) = o.find("enum") {
            // A null where the node is not nullable among them: it goes from every branch.
            let none: Vec<String> = values.iter().filter(|v| if v.is_null() { !nullable } else { !types.iter().any(|t| has_type(v, t)) }).map(crate::text::to_string).collect();
            if !none.is_empty() {
                cx.change("gemini/type-array", format!("enum values of none of the types removed (no value could have them): {}", none.join(", ")));
            }
        }
        let shared = annotations_only(&o);
        return Prepared::AnyOf(shared, branches, Vec::new(), nullable);
    }
    // One type and an enum: values of another type can never be valid (the server's validator
    // refuses them), and written as Gemini's strings they would read as choices; removed, as a
    // type list's are. A null the node does not allow (no `null` type, no `nullable: true`) is
    // removed too: kept, it would make the node nullable.
    if let ([t], Some(Value::Array(values))) = (&types[..], o.find_mut("enum")) {
        let t = *t;
        let fits = |v: &Value| if v.is_null() { nullable } else { has_type(v, t) };
        if !values.iter().all(fits) {
            let mut gone = Vec::new();
            let mut null_gone = false;
            values.retain(|v| {
                let keep = fits(v);
                match (keep, v) {
                    (true, _) => {}
                    (false, Value::Null) => null_gone = true,
                    (false, v) => gone.push(crate::text::to_string(v)),
                }
                keep
            });
            if null_gone {
                cx.change("gemini/enum-type", format!("`null` in enum not expressed: the type ({t}) does not allow null, so no value can be null"));
            }
            if !gone.is_empty() {
                cx.change("gemini/enum-type", format!("enum values not of type {t} removed (no value could have them): {}", gone.join(", ")));
            }
            match values.is_empty() {
                true => return Prepared::Done(Lowered::Never),
                false if values.iter().all(Value::is_null) => return Prepared::Done(only_null(&o, cx)),
                false => {}
            }
        }
    }
    // A `contains` that `minContains: 0` turns off requires no item: not described as one that
    // must be there.
    if let Some(note) = take_unrequired_contains(&mut o) {
        let message = match &note {
            Some(h) => format!("`contains` with `minContains: 0` requires no matching item: removed with its `minContains` and `maxContains`, and described ({h})"),
            None => "`contains` with `minContains: 0` requires no matching item (an array without one is valid): removed with its `minContains`".owned(),
        };
        cx.change("gemini/strip-keyword", message);
        hints.0.extend(note);
    }
    // Step 5: infer a missing type.
    let ty = match types.pop() {
        Some(t) => t,
        None => match infer_type(&o) {
            Some(t) => {
                cx.change("gemini/infer-type", format!("missing type inferred as {t}"));
                t
            }
            None => {
                // Nothing says what this is: any value.
                let mut shared = annotations_only(&o);
                for (k, v) in o.iter() {
                    if !shared.has(k) && k != "enum" {
                        hints.drop(cx, k, v);
                    }
                }
                finish_hints(&mut shared, hints);
                let branches = any_value(vertex)["anyOf"].as_array().cloned().unwrap_or_default();
                cx.change("gemini/any", "schema without a type: any of string, number, boolean, object, array, or null");
                return Prepared::AnyOf(shared, branches, Vec::new(), true);
            }
        },
    };
    // An enum makes the node a string whatever its declared type (Gemini: "enum: only allowed
    // for STRING type"); the declared type's own keywords then no longer apply.
    let declared = ty;
    let ty = if o.find("enum").is_some_and(Value::is_array) { "string" } else { declared };
    // A map below the root (no declared property, keys of its own choosing): Gemini's object
    // has no way to say it, and the model can send no key of it (the root's is reported there).
    if ty == "object"
        && !cx.path().is_empty()
        && o.find("properties").and_then(Value::as_object).is_none_or(Map::is_empty)
    {
        if o.has("patternProperties") || o.find("additionalProperties").is_some_and(|a| *a != Value::Bool(false)) {
            cx.problem("gemini/open-map", "an open map (additionalProperties or patternProperties, no declared property) cannot be said in Gemini's `parameters`: the model can give it no key (parametersJsonSchema keeps it)");
        } else if !o.has("additionalProperties") && o.find("unevaluatedProperties").is_some_and(|a| *a != Value::Bool(false)) {
            cx.problem("gemini/open-map", "an open map (unevaluatedProperties, no declared property) cannot be said in Gemini's `parameters`: the model can give it no key (parametersJsonSchema keeps it)");
        }
    }
    // A `properties` that is no object declares nothing: removed, reported as for every other
    // provider (on a node of another type it goes as `gemini/not-object`).
    if let Some(p) = o.find("properties").filter(|p| ty == "object" && !p.is_object()) {
        let message = format!("`properties` was {}, not an object; removed", crate::model::json_type(p));
        o.take("properties");
        cx.at("properties", |cx| {
            cx.change("schema/bad-properties", message);
            Ok(())
        })
        .ok();
    }
    // A required property the object does not declare but takes: declared (any value), or the
    // model, which gives declared properties only, could never give it.
    if ty == "object" && o.has("required") {
        crate::schema::fix_required(&mut o, cx);
    }
    let mut out = Map::new();
    out.put("type", Value::String(ty.into()));
    // A tuple (`prefixItems`, or draft 4's `items: [..]` and its `additionalItems`): Gemini's
    // `items` is one schema, so it is `anyOf` the leading items' schemas and the rest's; a closed
    // tuple (no more items) has at most as many items as it lists.
    let prefix = match o.find("prefixItems") {
        Some(Value::Array(p)) if ty == "array" && o.has("items") => Some(p.clone()),
        _ => None,
    };
    let additional = if ty == "array" && matches!(o.find("items"), Some(Value::Array(_))) { o.find("additionalItems").cloned() } else { None };
    // OpenAPI's `example` beside JSON Schema's `examples`: Gemini's one `example` is the first's.
    let example = if o.has("examples") { o.find("example").cloned() } else { None };
    let node = Node { ty, declared, out, plan: ArgPlan::default(), hints, nullable, prefix, additional, closed_at: None, example };
    Prepared::Keys(node, o)
}

impl Node {
    /// Step 6: the properties of an object, each lowered.
    #[inline(never)]
    fn properties(&mut self, props: JsonObject, cx: &mut Cx, vertex: bool) -> Result<()> {
        crate::providers::keys::report_gemini_keys(&props, cx);
        let mut lowered = Map::with_capacity(props.len());
        for (name, sub) in props {
            let r = cx.at("properties", |cx| cx.at(&name, |cx| lower(sub, cx, vertex)))?;
            self.put_property(&mut lowered, name, r, cx);
        }
        self.out.put("properties", Value::Object(lowered));
        Ok(())
    }

    /// Puts a lowered property into `lowered`, its plan into the node's.
    #[inline(never)]
    fn put_property(&mut self, lowered: &mut JsonObject, name: String, r: Lowered, cx: &mut Cx) {
        match r {
            Lowered::Schema(s, p) => {
                self.plan.set_property(&name, p);
                lowered.insert(name, s);
            }
            Lowered::Never => false_property(&name, cx),
        }
    }

    /// Step 7: the items of an array (a tuple's as `anyOf` its positions' schemas), lowered.
    #[inline(never)]
    fn items(&mut self, value: Value, cx: &mut Cx, vertex: bool) -> Result<()> {
        // Draft 4's tuple without `additionalItems` leaves the items past it open, as
        // `prefixItems` without `items` does: lowered as that is, the tuple described and
        // `items` any value (`finish`). `anyOf` the leading items' schemas would refuse the rest.
        if value.is_array() && self.additional.is_none() {
            let h = format!("leading items: {}", crate::schema::short_json(&value));
            cx.change("gemini/strip-keyword", format!("tuple `items: [..]` (draft 4) is not supported by Gemini; removed and described ({h}): the items past it may be any value"));
            self.hints.0.push(h);
            return Ok(());
        }
        let (item, parts) = self.tuple_item(value);
        let problems_before = cx.problems.len();
        let lowered = cx.at("items", |cx| lower(item, cx, vertex))?;
        self.put_items(lowered, parts, problems_before, cx, vertex)
    }

    /// The schema to lower as `items`, and for a tuple, how many leading items it has and the
    /// schemas of its positions.
    #[inline(never)]
    fn tuple_item(&mut self, value: Value) -> (Value, Option<(usize, Vec<Value>)>) {
        match (value, &self.prefix) {
            (Value::Array(mut tuple), _) => {
                self.hints.0.push(format!("leading items: {}", crate::schema::short_json(&Value::Array(tuple.clone()))));
                let leading = tuple.len();
                match self.additional.clone() {
                    Some(Value::Bool(false)) => self.closed_at = Some(tuple.len()),
                    Some(rest @ (Value::Object(_) | Value::Bool(true))) => tuple.push(rest),
                    _ => {}
                }
                let parts = Some((leading, tuple.clone()));
                (crate::model::object([("anyOf", Value::Array(tuple))]), parts)
            }
            (Value::Bool(false), Some(leading)) => {
                self.closed_at = Some(leading.len());
                (crate::model::object([("anyOf", Value::Array(leading.clone()))]), Some((leading.len(), leading.clone())))
            }
            (rest, Some(leading)) => {
                let mut branches = leading.clone();
                branches.push(rest);
                let parts = Some((leading.len(), branches.clone()));
                (crate::model::object([("anyOf", Value::Array(branches))]), parts)
            }
            (other, None) => (other, None),
        }
    }

    /// Puts the lowered `items` into the node, with its plan; a tuple's leading items and the
    /// rest's schema each mapped back by its own plan.
    #[inline(never)]
    fn put_items(&mut self, lowered: Lowered, parts: Option<(usize, Vec<Value>)>, problems_before: usize, cx: &mut Cx, vertex: bool) -> Result<()> {
        match lowered {
            Lowered::Schema(s, p) => match parts {
                Some((leading, schemas)) if !p.is_empty() => {
                    let (prefix_items, rest) = tuple_plans(leading, schemas, cx, vertex)?;
                    self.plan.prefix_items = prefix_items;
                    self.plan.items = rest.filter(|r| !r.is_empty()).map(Box::new);
                    self.out.put("items", s);
                    // Each position maps back by its own schema: the leading items'
                    // values no longer collide (a collision within one of them is
                    // said deeper, at its own path).
                    let items_path = format!("{}/items", cx.path());
                    let mut i = problems_before;
                    while i < cx.problems.len() {
                        if cx.problems[i].rule == "gemini/enum-collision" && cx.problems[i].path == items_path {
                            cx.problems.remove(i);
                        } else {
                            i += 1;
                        }
                    }
                }
                _ => {
                    if !p.is_empty() {
                        self.plan.items = Some(Box::new(p));
                    }
                    self.out.put("items", s);
                }
            },
            Lowered::Never => {
                self.out.put("maxItems", Value::from(0));
                self.out.put("items", object([("type", string("string"))]));
            }
        }
        Ok(())
    }

    /// Steps 8-10: a keyword other than an object's `properties` and an array's `items`, kept,
    /// rewritten, or removed (and described).
    #[inline(never)]
    fn keyword(&mut self, key: String, value: Value, cx: &mut Cx) {
        let (ty, declared) = (self.ty, self.declared);
        let out = &mut self.out;
        match key.as_str() {
            "required" if ty == "object" => {
                out.insert(key, value);
            }
            "enum" => {
                let Value::Array(values) = value else { return };
                // `null` becomes `nullable`; only other values that are not strings need mapping
                // back (a plan of strings alone would map every argument to itself).
                let stringified = values.iter().any(|v| !v.is_string() && !v.is_null());
                if values.iter().any(Value::is_null) {
                    cx.change("gemini/nullable", "`null` in enum expressed as nullable: true");
                }
                let mut strings = Vec::with_capacity(values.len());
                // Each string's first value (an enum may hold thousands).
                let mut first_of: HashMap<String, &Value> = HashMap::with_capacity(values.len());
                for v in &values {
                    if v.is_null() {
                        self.nullable = true;
                        continue;
                    }
                    match first_of.entry(enum_string(v)) {
                        Entry::Vacant(e) => {
                            strings.push(Value::String(e.key().clone()));
                            e.insert(v);
                        }
                        // 1 and "1": one string for Gemini, mapped back to the first.
                        Entry::Occupied(e) if *e.get() != v => {
                            let (first, v, s) = (crate::text::to_string(e.get()), crate::text::to_string(v), crate::text::to_string(&Value::String(e.key().clone())));
                            cx.problem(
                                "gemini/enum-collision",
                                format!("enum values {first} and {v} are the same string for Gemini, {s}: the model cannot choose {v}, and {s} is sent as {first}"),
                            );
                        }
                        Entry::Occupied(_) => {}
                    }
                }
                drop(first_of);
                if stringified {
                    cx.change("gemini/enum-strings", format!("enum values written as strings (type {declared} → string); arguments are mapped back"));
                    self.plan.enum_values = values.into_iter().filter(|v| !v.is_null()).collect();
                }
                out.put("enum", Value::Array(strings));
            }
            "format" => {
                let ok = matches!(
                    (ty, value.as_str()),
                    ("string", Some("enum" | "date-time")) | ("number", Some("float" | "double")) | ("integer", Some("int32" | "int64"))
                );
                if ok {
                    out.insert(key, value);
                } else {
                    self.hints.drop(cx, &key, &value);
                }
            }
            // Gemini's `example` holds one value: the node's own `example` when it has one, else
            // the first of `examples`; the others described.
            "examples" => match (value.as_array().filter(|a| !a.is_empty()), &self.example) {
                (Some(a), Some(e)) => {
                    let others: Vec<Value> = a.iter().filter(|v| *v != e).cloned().collect();
                    if !others.is_empty() {
                        self.hints.0.push(format!("other examples: {}", crate::schema::short_json(&Value::Array(others))));
                        cx.change("gemini/examples", "`examples` beside `example`, and Gemini's `example` holds one value: `example` kept, the other examples described");
                    }
                }
                (Some(a), None) => {
                    out.put("example", a[0].clone());
                    if a.len() > 1 {
                        self.hints.0.push(format!("other examples: {}", crate::schema::short_json(&Value::Array(a[1..].to_vec()))));
                        cx.change("gemini/examples", format!("`examples` has {} values and Gemini's `example` one: the first kept, the others described", a.len()));
                    }
                }
                (None, _) => cx.change("gemini/strip-keyword", "`examples` is not a non-empty list of values; removed"),
            },
            // Gemini's Schema fields have types (counts are int64, titles strings...): a value of
            // another type is described like an unsupported keyword, not sent to be refused.
            "minItems" | "maxItems" if ty == "array" && value.is_u64() => {
                out.insert(key, value);
            }
            "minLength" | "maxLength" if ty == "string" && value.is_u64() => {
                out.insert(key, value);
            }
            "pattern" if ty == "string" && value.is_string() => {
                out.insert(key, value);
            }
            "minimum" | "maximum" if (ty == "number" || ty == "integer") && value.is_number() => {
                out.insert(key, value);
            }
            "minProperties" | "maxProperties" if ty == "object" && value.is_u64() => {
                out.insert(key, value);
            }
            "title" | "description" if value.is_string() => {
                out.insert(key, value);
            }
            "example" | "default" | "propertyOrdering" => {
                out.insert(key, value);
            }
            "properties" | "required" | "additionalProperties" | "patternProperties" | "minProperties" | "maxProperties"
                if ty != "object" =>
            {
                cx.change("gemini/not-object", format!("`{key}` on a {ty} node has no effect; removed (Gemini allows it on objects only)"));
            }
            "additionalProperties" if value == Value::Bool(false) => {
                cx.change("gemini/strip-keyword", "`additionalProperties: false` is not supported by Gemini; removed (Gemini only fills declared properties)");
            }
            _ => self.hints.drop(cx, &key, &value),
        }
    }

    /// The lowered node, after its keys: a closed tuple's length, an object's shape, an array's
    /// `items`, `nullable`, and the hints of what was removed.
    #[inline(never)]
    fn finish(self, cx: &mut Cx, vertex: bool) -> Lowered {
        let Node { ty, mut out, plan, hints, nullable, closed_at, .. } = self;
        if let Some(n) = closed_at {
            // At most the tuple's length (or the node's own, smaller, maxItems).
            if out.find("maxItems").and_then(Value::as_u64).is_none_or(|m| m > n as u64) {
                out.put("maxItems", Value::from(n));
            }
        }
        // Step 6: object shape.
        if ty == "object" {
            fix_object(&mut out, cx);
        }
        // Step 7: items always present.
        if ty == "array" && !out.has("items") {
            out.put("items", any_value(vertex));
            cx.change("gemini/add-items", "array without `items`: items may be any of string, number, boolean, object, array, or null");
        }
        // Step 8 follow-up: an enum-stringified node's default must be a string too.
        if out.find("enum").is_some() {
            if let Some(d) = out.find_mut("default") {
                if !d.is_string() && !d.is_null() {
                    *d = Value::String(enum_string(d));
                }
            }
        }
        if nullable {
            out.put("nullable", Value::Bool(true));
        }
        finish_hints(&mut out, hints);
        Lowered::Schema(Value::Object(out), plan)
    }
}

/// Reports a property whose schema is `false`, which the lowering removes.
#[inline(never)]
fn false_property(name: &str, cx: &mut Cx) {
    cx.at("properties", |cx| {
        cx.at(name, |cx| {
            cx.change("gemini/false-property", "property schema is `false` (it can never be given); removed");
            Ok(())
        })
    })
    .ok();
}

/// A `type` beside an `anyOf` (or a `oneOf`, read as one): a value must have one of the node's
/// types and match a branch, so each branch keeps the types it shares with the node's (an
/// `integer` branch of a `number` node stays `integer`, a `number` branch of an `integer` node
/// becomes `integer`; `null` where the node allows it, by its type or `nullable: true`, else
/// neither by a branch's `nullable` nor among its `enum` values). A branch that shares none
/// (or whose values are `null` alone) can match no value the node takes and is removed; where
/// no branch is left to take `null` (by its type, `nullable`, `enum` or `const`), the node's
/// `null` goes too. A branch's type written in another case (`Integer`) is read as `integer`. A branch `true` becomes `{}`, which takes
/// the node's types as every untyped branch does (in [`lower_any_of`]); an untyped branch that
/// is a union itself takes them here, with `null` where the node allows it, so its own branches
/// are narrowed in turn. A branch whose `type` names something outside JSON Schema's types is
/// left to its own lowering. Reported as `gemini/anyof-keyword` (the `type` beside the anyOf).
/// Whether no branch is left (the node allows no value).
fn narrow_branches(o: &mut JsonObject, cx: &mut Cx) -> bool {
    const NAMES: [&str; 7] = ["string", "number", "integer", "boolean", "array", "object", "null"];
    let node: Vec<&'static str> = types_of(o).into_iter().filter_map(|t| NAMES.iter().find(|n| **n == t).copied()).collect();
    if node.is_empty() || node.len() < types_of(o).len() {
        return false;
    }
    let node_null = node.contains(&"null") || o.find("nullable") == Some(&Value::Bool(true));
    let node_list = || Value::Array(node.iter().chain(node_null.then_some(&"null").filter(|_| !node.contains(&"null"))).map(|t| string(t)).collect());
    let Some(Value::Array(branches)) = o.get_mut("anyOf") else { return false };
    let mut removed = Vec::new();
    let mut narrowed = Vec::new();
    let mut unnulled = Vec::new();
    let mut kept = Vec::with_capacity(branches.len());
    for (i, mut b) in std::mem::take(branches).into_iter().enumerate() {
        if b == Value::Bool(true) {
            b = Value::Object(Map::new());
        }
        if let Value::Object(bo) = &mut b {
            // A type written in another case ("Integer") is read as its lowering reads it; a
            // name of no JSON Schema type ("foo") is removed as it removes it, and a branch left
            // without a type takes the node's, as an untyped one does (not any value).
            if bo.has("type") && !types_of(bo).iter().all(|t| NAMES.contains(t)) {
                cx.at("anyOf", |cx| {
                    cx.at(&i.to_string(), |cx| {
                        crate::schema::normalize_type(bo, cx);
                        Ok(())
                    })
                })
                .ok();
            }
            let own: Vec<&str> = types_of(bo);
            if bo.has("type") && own.iter().all(|t| NAMES.contains(t)) {
                let mut shared: Vec<&'static str> = Vec::new();
                for t in &own {
                    let t = match *t {
                        "null" if node_null => "null",
                        t if node.contains(&t) => NAMES.iter().find(|n| **n == t).copied().unwrap_or("null"),
                        "number" | "integer" if node.contains(&"integer") || node.contains(&"number") => "integer",
                        _ => continue,
                    };
                    if !shared.contains(&t) {
                        shared.push(t);
                    }
                }
                if shared.is_empty() {
                    removed.push(format!("{i} ({})", own.join(", ")));
                    continue;
                }
                if shared.len() != own.len() || shared.iter().zip(&own).any(|(a, b)| a != b) {
                    narrowed.push(format!("{i} ({} to {})", own.join(", "), shared.join(", ")));
                    bo.put("type", if let [t] = shared[..] { string(t) } else { Value::Array(shared.iter().map(|t| string(t)).collect()) });
                }
            } else if !bo.has("type") && node_null && (bo.has("anyOf") || bo.has("oneOf")) {
                bo.put("type", node_list());
            }
            // A null the node refuses is none of the branch's either: not by its `nullable` or
            // `enum` (which its lowering makes `nullable`); a branch of null values alone (`const:
            // null`) matches no value the node takes.
            if !node_null {
                let mut took = false;
                if let Some(Value::Array(values)) = bo.find_mut("enum") {
                    let n = values.len();
                    values.retain(|v| !v.is_null());
                    took = values.len() < n;
                }
                if bo.find("const").is_some_and(Value::is_null) || (took && bo.find("enum").and_then(Value::as_array).is_some_and(Vec::is_empty)) {
                    removed.push(format!("{i} (null)"));
                    continue;
                }
                if bo.find("nullable") == Some(&Value::Bool(true)) {
                    bo.take("nullable");
                    took = true;
                }
                if took {
                    unnulled.push(i.to_string());
                }
            }
        }
        kept.push(b);
    }
    *branches = kept;
    // A value of no type the node's shares (`null` aside, which the node says through
    // `nullable`): which branches take `null`, in the narrowed union. A typed branch's enum
    // takes it only where the branch's type does (its lowering removes it otherwise), or as
    // its only value (`only_null`).
    let takes_null = |b: &Value| match b {
        Value::Object(bo) => {
            !bo.has("type")
                || types_of(bo).contains(&"null")
                || bo.find("nullable") == Some(&Value::Bool(true))
                || bo.find("const").is_some_and(Value::is_null)
                || bo.find("enum").and_then(Value::as_array).is_some_and(|e| !e.is_empty() && e.iter().all(Value::is_null))
        }
        _ => false,
    };
    let drop_null = node_null && !branches.iter().any(takes_null);
    let all_removed = branches.is_empty();
    let t = node.join(", ");
    let mut parts = Vec::new();
    if !removed.is_empty() {
        parts.push(format!("branches of none of its types removed (no value could match both): {}", removed.join(", ")));
    }
    if !narrowed.is_empty() {
        parts.push(format!("branches narrowed to the types they share with it: {}", narrowed.join(", ")));
    }
    if !unnulled.is_empty() {
        parts.push(format!("null, which it does not allow, removed from branches (their `nullable` or `enum`): {}", unnulled.join(", ")));
    }
    if drop_null && !all_removed {
        parts.push("no branch takes null: the node's null removed".to_owned());
    }
    if drop_null {
        o.take("nullable");
        if let Some(Value::Array(ts)) = o.get_mut("type") {
            ts.retain(|t| t != "null");
        } else if o.find("type").and_then(Value::as_str) == Some("null") {
            o.take("type");
        }
    }
    if !parts.is_empty() {
        cx.change("gemini/anyof-keyword", format!("`type` [{t}] beside anyOf: {}", parts.join("; ")));
    }
    all_removed && !removed.is_empty()
}

/// Gemini's counts are int64 (decimal strings on the wire, [`to_wire`]): a count past
/// `i64::MAX` (9223372036854775807) is a string no int64 holds, and whether it came as an
/// integer (the JSON API's `12345678901234567890`) or as a double (an object's
/// `12345678901234567000`, or `2^64`), it is treated alike. A maximum there limits nothing an
/// int64 can say: removed. A minimum there leaves no value any realistic argument has (a string
/// of 2^63 characters): the closest bound Gemini takes, `i64::MAX`, sent instead, and reported
/// as a node that allows no value (`schema/disjoint-values`). Run after the counts written as
/// doubles below 2^63 are made integers, so every count left is an integer up to `i64::MAX`.
fn int64_counts(o: &mut JsonObject, cx: &mut Cx) {
    const MAX: u64 = i64::MAX as u64;
    for key in COUNTS {
        let Some(v) = o.find(key) else { continue };
        if v.as_u64().is_some_and(|n| n <= MAX) || !v.as_f64().is_some_and(|f| f >= 0.0) {
            continue;
        }
        let was = crate::schema::short_json(v);
        if key.starts_with("max") {
            o.take(key);
            cx.at(key, |cx| {
                cx.change("schema/bad-keyword-value", format!("`{key}` was {was}, past what Gemini's int64 counts hold ({MAX}): it limits nothing they can say; removed"));
                Ok(())
            })
            .ok();
        } else {
            o.put(key, Value::from(MAX));
            cx.at(key, |cx| {
                cx.problem(
                    "schema/disjoint-values",
                    format!("allows no value: `{key}` is {was}, past what Gemini's int64 counts hold; sent as {MAX}, the largest they hold"),
                );
                Ok(())
            })
            .ok();
        }
    }
}

/// A schema that allows `null` only (`type: "null"`, an `anyOf` of `null`s): Gemini's
/// `parameters` has no such type (its NULL is refused, see providers.md §3 #23) and no empty
/// enum, so the closest is a nullable string described as null, and a problem says so (any
/// other value would widen it to a type, too; this one the description rules out).
fn only_null(o: &JsonObject, cx: &mut Cx) -> Lowered {
    let mut out = annotations_only(o);
    out.take("default");
    out.take("example");
    out.put("type", string("string"));
    out.put("nullable", Value::Bool(true));
    append_description(&mut out, "(must be null)");
    cx.problem(
        "gemini/null-only",
        "a value that can only be null has no form in Gemini's `parameters` (no NULL type): sent as a nullable string described as null, so a string from the model is not refused (parametersJsonSchema keeps `type: \"null\"`)",
    );
    Lowered::Schema(Value::Object(out), ArgPlan::default())
}

/// An object with its own properties and an `anyOf` of distinct object shapes (a discriminated
/// union): `object ∧ (A ∨ B)` becomes `(object ∧ A) ∨ (object ∧ B)`, so no branch loses the
/// shared properties and no branch loses its own definitions.
fn distribute_into_branches(o: &mut JsonObject, cx: &mut Cx) {
    let shared_props = match o.take("properties") {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    let shared_required = o.take("required");
    // An untyped branch is of the node's types: object, which takes the properties, and the
    // others the node has (a string of `type: ["string", "object"]` stays one; null aside, the
    // node's nullable).
    let own: Vec<Value> = types_of(o).into_iter().filter(|t| *t != "null").map(string).collect();
    let untyped = match &own[..] {
        [] | [_] => string("object"),
        _ => Value::Array(own),
    };
    let mut both = false;
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = o.get_mut(key) else { continue };
        for b in branches.iter_mut() {
            let Value::Object(bo) = b else { continue };
            let bt = types_of(bo);
            if !(bt.is_empty() || bt == ["object"]) {
                continue;
            }
            bo.put("type", if bt.is_empty() { untyped.clone() } else { string("object") });
            let props = bo.entry("properties").or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(p) = props {
                for (k, v) in &shared_props {
                    match p.get_mut(k) {
                        // Both hold (the object and its branch): one schema that says both.
                        Some(mine) if mine != v => {
                            *mine = crate::schema::lower::intersect(v, mine).0;
                            both = true;
                        }
                        Some(_) => {}
                        None => {
                            p.insert(k.clone(), v.clone());
                        }
                    }
                }
            }
            if let Some(Value::Array(req)) = &shared_required {
                let r = bo.entry("required").or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(r) = r {
                    crate::model::add_names(r, req);
                }
            }
        }
    }
    if !shared_props.is_empty() || shared_required.is_some() {
        let mut message = "the object's own properties copied into each anyOf branch (Gemini: a node has either type or anyOf)".to_owned();
        if both {
            message.push_str("; a property the object and a branch both define gets one schema that says both");
        }
        cx.change("gemini/distribute", message);
    }
    if types_of(o) == ["object"] {
        o.take("type");
    }
}

/// `properties` and `required` consistent; an empty `properties` omitted.
fn fix_object(out: &mut JsonObject, cx: &mut Cx) {
    let names: Vec<String> = out.find("properties").and_then(Value::as_object).map(|p| p.keys().cloned().collect()).unwrap_or_default();
    if let Some(req) = out.take("required") {
        let mut kept = Vec::new();
        let mut removed = Vec::new();
        if let Value::Array(items) = req {
            let declared = NameSet::of(names.iter().map(String::as_str));
            let mut once = NameSet::default();
            for r in &items {
                match r.as_str() {
                    Some(n) if declared.contains(n) => {
                        if once.insert(n) {
                            kept.push(r.clone());
                        }
                    }
                    _ => removed.push(crate::schema::short_json(r)),
                }
            }
        }
        if !removed.is_empty() {
            let msg = format!("removed from `required` (no such property): {}", removed.join(", "));
            cx.at("required", |cx| {
                cx.change("schema/required-missing-property", msg);
                Ok(())
            })
            .ok();
        }
        if !kept.is_empty() {
            out.put("required", Value::Array(kept));
        }
    }
    if names.is_empty() {
        out.take("properties");
    }
}

/// Lowers a union: `shared`, the keywords beside it, and its branches (those without a type of
/// their own take `node_types`). On the recursion's path, as [`lower_object`]: what takes no part
/// in it is in [`typed_branch`] and [`Union`]'s methods.
fn lower_any_of(
    mut shared: JsonObject,
    mut branches: Vec<Value>,
    node_types: Vec<&'static str>,
    nullable: bool,
    cx: &mut Cx,
    vertex: bool,
) -> Result<Lowered> {
    let mut union = Union { hints: Hints(Vec::new()), branches: Vec::with_capacity(branches.len()), plans: Vec::new() };
    distribute_keywords(&mut shared, &mut branches, &node_types, &mut union.hints, cx);
    for (i, b) in branches.into_iter().enumerate() {
        let b = typed_branch(b, &node_types, nullable);
        let lowered = cx.at("anyOf", |cx| cx.at(&i.to_string(), |cx| lower(b, cx, vertex)))?;
        union.push(lowered);
    }
    Ok(union.finish(shared, nullable, cx, vertex))
}

/// A branch without a type inherits the node's types: one, or a list that its lowering splits by
/// type, each with the branch's keywords that apply to it. A nullable node's null is inherited
/// too where the branch's enum lists it, which the branch's type would otherwise leave out.
#[inline(never)]
fn typed_branch(b: Value, node_types: &[&'static str], nullable: bool) -> Value {
    match (b, node_types) {
        (Value::Object(mut bo), [t, ..]) if !bo.has("type") => {
            let ty = match node_types {
                [_] => Value::String((*t).into()),
                all => Value::Array(all.iter().map(|t| Value::String((*t).into())).collect()),
            };
            bo.put("type", ty);
            if nullable && bo.find("enum").and_then(Value::as_array).is_some_and(|e| e.iter().any(Value::is_null)) {
                bo.put("nullable", Value::Bool(true));
            }
            Value::Object(bo)
        }
        (b, _) => b,
    }
}

/// A union's branches as they are lowered, with their plans.
struct Union {
    hints: Hints,
    branches: Vec<Value>,
    plans: Vec<ArgPlan>,
}

impl Union {
    /// Adds a lowered branch.
    #[inline(never)]
    fn push(&mut self, lowered: Lowered) {
        let (out_branches, plans) = (&mut self.branches, &mut self.plans);
        match lowered {
            // A branch that is itself an anyOf: splice its alternatives in (a union of unions).
            // Its description (with the notes of its keywords for its untyped branches) says
            // what each alternative is: joined before theirs, as Vertex joins a union's.
            Lowered::Schema(Value::Object(mut bo), p) if bo.has("anyOf") && !bo.has("type") => {
                let nested_nullable = bo.take("nullable") == Some(Value::Bool(true));
                let note = bo.find("description").and_then(Value::as_str).map(str::to_owned);
                if let Some(Value::Array(inner)) = bo.take("anyOf") {
                    for mut sub in inner {
                        if let Value::Object(so) = &mut sub {
                            if let Some(n) = &note {
                                match so.find_mut("description") {
                                    Some(Value::String(d)) => *d = joined_description(n, d),
                                    Some(_) => {}
                                    None => {
                                        so.put("description", string(n));
                                    }
                                }
                            }
                            if nested_nullable {
                                so.put("nullable", Value::Bool(true));
                            }
                        }
                        out_branches.push(sub);
                        plans.push(p.clone());
                    }
                }
            }
            Lowered::Schema(s, p) => {
                out_branches.push(s);
                plans.push(p);
            }
            Lowered::Never => {}
        }
    }

    /// The lowered union, the keywords beside it described (Vertex: its title, description and
    /// nullability moved into the branches).
    #[inline(never)]
    fn finish(self, mut shared: JsonObject, nullable: bool, cx: &mut Cx, vertex: bool) -> Lowered {
        let Union { mut hints, branches: mut out_branches, mut plans } = self;
        if out_branches.is_empty() {
            cx.problem("gemini/no-valid-branch", "no branch of the anyOf can ever be valid; the property is removed");
            return Lowered::Never;
        }
        if plans.iter().any(|p| !p.is_empty()) {
            // Each plan maps back only values of its branch (`ArgPlan::apply`).
            for (p, b) in plans.iter_mut().zip(&out_branches) {
                p.fit = Some(Box::new(Fit::of(b)));
            }
            enum_collisions(&plans, cx);
        }
        let mut plan = ArgPlan::default();
        if plans.iter().any(|p| !p.is_empty()) {
            plan.any_of = plans;
        }
        // Other keywords beside the anyOf are described, not kept.
        let keys: Vec<String> = shared.keys().cloned().collect();
        for k in keys {
            if !matches!(k.as_str(), "title" | "description" | "default" | "example") {
                if let Some(v) = shared.remove(&k) {
                    hints.drop(cx, &k, &v);
                }
            }
        }
        finish_hints(&mut shared, hints);
        if vertex {
            // Vertex: "When using any_of, it must be the only field set."
            for b in &mut out_branches {
                if let Value::Object(bo) = b {
                    if let Some(v) = shared.find("title") {
                        bo.entry("title").or_insert_with(|| v.clone());
                    }
                    if let Some(Value::String(d)) = shared.find("description") {
                        match bo.find_mut("description") {
                            Some(Value::String(bd)) => *bd = joined_description(d, bd),
                            Some(_) => {}
                            None => {
                                bo.put("description", string(d));
                            }
                        }
                    }
                    if nullable {
                        bo.put("nullable", Value::Bool(true));
                    }
                }
            }
            if !shared.is_empty() {
                let dropped: Vec<&str> = ["default", "example"].into_iter().filter(|k| shared.has(k)).collect();
                let message = match dropped.is_empty() {
                    true => "title, description and nullability moved into the anyOf branches (Vertex: anyOf must stand alone)".owned(),
                    false => format!(
                        "title, description and nullability moved into the anyOf branches, `{}` removed (Vertex: anyOf must stand alone)",
                        dropped.join("`, `")
                    ),
                };
                cx.change("vertex/anyof-alone", message);
            }
            let mut out = Map::new();
            out.put("anyOf", Value::Array(out_branches));
            return Lowered::Schema(Value::Object(out), plan);
        }
        shared.put("anyOf", Value::Array(out_branches));
        if nullable {
            shared.put("nullable", Value::Bool(true));
        }
        Lowered::Schema(Value::Object(shared), plan)
    }
}

/// The argument plans of a tuple's parts, lowered one by one (what they report is said where the
/// tuple's `items` is lowered): one per leading item (`leading` of `schemas`), then the rest's,
/// if `schemas` has one.
fn tuple_plans(leading: usize, schemas: Vec<Value>, cx: &mut Cx, vertex: bool) -> Result<(Vec<ArgPlan>, Option<ArgPlan>)> {
    let before = (cx.changes.len(), cx.problems.len());
    let mut plans = Vec::with_capacity(schemas.len());
    for schema in schemas {
        plans.push(match cx.at("items", |cx| lower(schema, cx, vertex))? {
            Lowered::Schema(_, p) => p,
            Lowered::Never => ArgPlan::default(),
        });
    }
    cx.changes.truncate(before.0);
    cx.problems.truncate(before.1);
    let rest = (plans.len() > leading).then(|| plans.pop()).flatten();
    Ok((plans, rest))
}

/// A branch's enum values written as strings (1 → "1"), at its own level or in its properties
/// and items (or those of a union nested there), that another branch takes as strings at the
/// same place, where nothing else in the arguments tells the two branches apart
/// ([`Fit::overlaps`]): the model's string is mapped back by the branch that changes the
/// arguments most (`ArgPlan::apply`), whichever it meant.
fn enum_collisions(plans: &[ArgPlan], cx: &mut Cx) {
    for (i, place, v) in collisions(plans).0 {
        let s = enum_string(v);
        let v = crate::text::to_string(v);
        let message = if place.is_empty() {
            format!("enum value {v} is written as the string \"{s}\", which another branch of the anyOf takes as a string: \"{s}\" from the model is sent as {v}")
        } else {
            let at = place.iter().map(Step::token).collect::<Vec<_>>().join("/");
            format!("enum value {v} of branch {i} at `{at}` is written as the string \"{s}\", which another branch of the anyOf takes as a string at the same place, and nothing else in the arguments tells the two apart: \"{s}\" there may be sent as {v} (the branch that maps more of the arguments back decides)")
        };
        cx.problem("gemini/enum-collision", message);
    }
}

/// A step from a value to one inside it: a property by name, or an array's items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Step<'p> {
    Property(&'p str),
    Items,
}

impl Step<'_> {
    /// As a report writes it: a property's name JSON-pointer escaped (`a/b` is `a~1b`), `items`.
    fn token(&self) -> String {
        match self {
            Step::Property(name) => name.replace('~', "~0").replace('/', "~1"),
            Step::Items => "items".to_owned(),
        }
    }
}

/// A stringified enum value another branch takes: (branch, place, value).
type Collision<'p> = (usize, Vec<Step<'p>>, &'p Value);

/// The branches that take any string at a place, and those that take listed strings, by string.
type Takers<'p> = (Vec<usize>, std::collections::HashMap<&'p str, Vec<usize>>);

/// What [`enum_collisions`] reports, as (branch, place, value) in the branches' order, and the
/// work it took (places read and branches compared, for tests). Linear in the enum values and
/// the places that have them: each value is looked up among the strings that each place takes
/// (read once per place and branch), and each pair of branches is compared once.
fn collisions(plans: &[ArgPlan]) -> (Vec<Collision<'_>>, usize) {
    use std::collections::{HashMap, HashSet};
    /// The enum values of `plan` that are no strings, with where they are; a nested union's
    /// branches count where their fit may hold a value of `fit` (a spliced branch carries the
    /// plan of the whole union it came from).
    fn stringified<'p>(plan: &'p ArgPlan, fit: Option<&Fit>, at: &mut Vec<Step<'p>>, out: &mut Vec<(Vec<Step<'p>>, &'p Value)>, depth: usize) {
        if depth > 8 {
            return;
        }
        for v in plan.enum_values.iter().filter(|v| !v.is_string()) {
            out.push((at.clone(), v));
        }
        for (name, p) in &plan.properties {
            at.push(Step::Property(name));
            stringified(p, None, at, out, depth + 1);
            at.pop();
        }
        if let Some(items) = &plan.items {
            at.push(Step::Items);
            stringified(items, None, at, out, depth + 1);
            at.pop();
        }
        for inner in &plan.any_of {
            if fit.zip(inner.fit.as_deref()).is_none_or(|(a, b)| a.overlaps(b)) {
                stringified(inner, inner.fit.as_deref(), at, out, depth + 1);
            }
        }
    }
    /// The strings a branch (its fit) may hold at a place: none (`Some(empty)` and `false`),
    /// any (`None`), or those listed.
    fn strings_at<'f>(fit: Option<&'f Fit>, place: &[Step]) -> Option<Option<Vec<&'f str>>> {
        let Some(fit) = fit else { return Some(None) };
        match place.split_first() {
            None if !fit.takes_type("string") => None,
            None if fit.values.is_empty() => Some(None),
            None => Some(Some(fit.values.iter().filter_map(Value::as_str).collect())),
            Some((Step::Items, rest)) => fit.takes_type("array").then(|| strings_at(fit.items.as_deref(), rest)).flatten(),
            Some((Step::Property(name), rest)) => {
                let sub = fit.property(name);
                // A closed object without the property cannot have it.
                (fit.takes_type("object") && (sub.is_some() || !fit.closed)).then(|| strings_at(sub, rest)).flatten()
            }
        }
    }
    let mut work = 0;
    // Every stringified value: (branch, place, value), and each place and string's branches.
    let mut found = Vec::new();
    let mut by_key: HashMap<(&[Step], String), HashSet<usize>> = HashMap::new();
    let per_branch: Vec<Vec<(Vec<Step>, &Value)>> = plans
        .iter()
        .map(|p| {
            let mut out = Vec::new();
            stringified(p, p.fit.as_deref(), &mut Vec::new(), &mut out, 0);
            out
        })
        .collect();
    for (i, entries) in per_branch.iter().enumerate() {
        for (place, v) in entries {
            work += 1;
            by_key.entry((place.as_slice(), enum_string(v))).or_default().insert(i);
            found.push((i, place.as_slice(), *v));
        }
    }
    // Per place: the branches that take any string there, and those that take listed ones.
    let mut takers: HashMap<&[Step], Takers> = HashMap::new();
    // Per place and string: the branches that take it as a string, once for all its values.
    let mut taking: HashMap<(&[Step], String), Vec<usize>> = HashMap::new();
    let mut overlaps: HashMap<(usize, usize), bool> = HashMap::new();
    let mut out = Vec::new();
    for (i, place, v) in found {
        let s = enum_string(v);
        let key = (place, s);
        if !taking.contains_key(&key) {
            let (any, listed) = takers.entry(place).or_insert_with(|| {
                let mut any = Vec::new();
                let mut listed: HashMap<&str, Vec<usize>> = HashMap::new();
                for (j, q) in plans.iter().enumerate() {
                    work += 1;
                    match strings_at(q.fit.as_deref(), place) {
                        None => {}
                        Some(None) => any.push(j),
                        Some(Some(strings)) => strings.into_iter().for_each(|s| listed.entry(s).or_default().push(j)),
                    }
                }
                (any, listed)
            });
            // Not a branch that writes the same string there itself (it maps it back too).
            let same = &by_key[&key];
            let candidates = any.iter().chain(listed.get(key.1.as_str()).into_iter().flatten());
            let found: Vec<usize> = candidates.inspect(|_| work += 1).filter(|j| !same.contains(j)).copied().collect();
            taking.insert(key.clone(), found);
        }
        let taken = taking[&key].iter().filter(|j| **j != i).any(|&j| {
            work += 1;
            *overlaps.entry((i.min(j), i.max(j))).or_insert_with(|| {
                let (p, q) = (&plans[i], &plans[j]);
                p.fit.as_deref().zip(q.fit.as_deref()).is_none_or(|(a, b)| a.overlaps(b))
            })
        });
        if taken {
            out.push((i, place.to_vec(), v));
        }
    }
    (out, work)
}

/// A description `outer` (a union's, or a node's a branch is merged into) joined before
/// `own`, a branch's or an alternative's: "outer (own)", or "outer (note)" where `own` is
/// parenthesised notes already ("(format: date)", not put in parentheses again); `own` where
/// it says `outer` already.
pub(crate) fn joined_description(outer: &str, own: &str) -> String {
    if own.contains(outer) {
        return own.owned();
    }
    let own = own.trim();
    match notes_only(own) {
        true => format!("{} {own}", outer.trim_end()),
        false => format!("{} ({own})", outer.trim_end()),
    }
}

/// Whether `s` is parenthesised notes alone: "(format: date)", "(a) (b)".
fn notes_only(s: &str) -> bool {
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth > 0 => depth -= 1,
            c if depth == 0 && !c.is_whitespace() => return false,
            _ => {}
        }
    }
    depth == 0 && s.starts_with('(')
}

fn is_null_schema(v: &Value) -> bool {
    v.find("type").and_then(Value::as_str) == Some("null")
}

fn annotations_only(o: &JsonObject) -> JsonObject {
    o.iter()
        .filter(|(k, _)| matches!(k.as_str(), "title" | "description" | "default" | "example"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Whether keyword `k` (of value `v`) constrains values of type `t` (`None`: it is no keyword
/// that only some types heed, or not one the lowering keeps in a typed node). A `format` is of
/// the type it names: `int32`/`int64` of integers (and numbers), `float`/`double` of numbers,
/// the others of strings, as the lowering keeps them (step 9).
pub(crate) fn keyword_applies(k: &str, v: &Value, t: &str) -> Option<bool> {
    Some(match k {
        "properties" | "required" | "additionalProperties" | "patternProperties" | "minProperties" | "maxProperties"
        | "propertyNames" => t == "object",
        "items" | "prefixItems" | "minItems" | "maxItems" | "uniqueItems" | "contains" => t == "array",
        "format" => match v.as_str() {
            Some("int32" | "int64") => t == "integer" || t == "number",
            Some("float" | "double") => t == "number",
            _ => t == "string",
        },
        "minLength" | "maxLength" | "pattern" => t == "string",
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => t == "number" || t == "integer",
        "enum" => true,
        _ => return None,
    })
}

/// The keywords beside an `anyOf` that constrain values of some types (`minimum`, `maxLength`,
/// `enum`...): Gemini's node has either a type or an `anyOf`, so they go into the branches of
/// those types, where both the keyword and the branch hold (as a type list's go into the
/// branch of each type, [`branch_for_type`]). A branch without a type of its own has the
/// node's types (`node_types`, all of them). An `enum` goes into each branch as the values of
/// its types (a branch left with none allows no value, and goes), and draft 4's boolean
/// `exclusiveMinimum`/`exclusiveMaximum` with its bound, as the number it means. A branch that
/// is a union itself takes them beside its own anyOf, which its lowering distributes into its
/// branches in turn ([`branch_types`]). A branch of no type the lowering can tell cannot take them: for its sake such a keyword is also described
/// on the node, and the report says so.
fn distribute_keywords(shared: &mut JsonObject, branches: &mut [Value], node_types: &[&'static str], hints: &mut Hints, cx: &mut Cx) {
    if crate::schema::has_draft4_exclusive(shared) {
        // An exclusive flag belongs to its bound: apart, it would qualify a branch's own bound.
        crate::schema::draft4_exclusives(shared);
    }
    let keys: Vec<String> = shared.iter().filter(|(k, v)| keyword_applies(k, v, "string").is_some()).map(|(k, _)| k.clone()).collect();
    if keys.is_empty() {
        return;
    }
    // Each branch's types as the lowering will read them (none: it cannot tell).
    let types: Vec<Vec<String>> = branches.iter().map(|b| branch_types(b, node_types, 0)).collect();
    for k in keys {
        let Some(v) = shared.remove(&k) else { continue };
        let mut into = Vec::new();
        let mut emptied = Vec::new();
        let mut untyped = false;
        for (i, (b, ts)) in branches.iter_mut().zip(&types).enumerate() {
            let Value::Object(bo) = b else { continue };
            if ts.is_empty() {
                untyped = true;
            } else if k == "enum" {
                let Value::Array(values) = &v else { continue };
                let mine: Vec<Value> = values.iter().filter(|x| ts.iter().any(|t| has_type(x, t))).cloned().collect();
                if mine.is_empty() {
                    *b = Value::Bool(false);
                    emptied.push(i.to_string());
                } else {
                    both_hold(bo, &k, &Value::Array(mine));
                    into.push(i.to_string());
                }
            } else if ts.iter().any(|t| keyword_applies(&k, &v, t) == Some(true)) {
                both_hold(bo, &k, &v);
                into.push(i.to_string());
            }
        }
        let moved = (!into.is_empty()).then(|| match k.as_str() {
            "enum" => format!("moved into the branches it applies to ({}), each with the values of its types", into.join(", ")),
            _ => format!("moved into the branches it applies to ({})", into.join(", ")),
        });
        let mut message = match (moved, untyped) {
            (Some(m), false) => format!("`{k}` beside anyOf {m}: a Gemini node has either type or anyOf"),
            (moved, true) => {
                let hint = keyword_hint(&k, &v);
                let described = hint.as_ref().map_or_else(|| "removed".to_owned(), |h| format!("removed and described ({h})"));
                if let Some(h) = hint {
                    hints.0.push(h);
                }
                let moved = moved.map_or_else(String::new, |m| format!("{m}; "));
                format!("`{k}` beside anyOf: {moved}for the branches of no type Gemini can tell, {described} (a Gemini node has either type or anyOf)")
            }
            (None, false) => format!("`{k}` beside anyOf applies to none of its branches' types (it constrains none of their values); removed"),
        };
        if let (false, "enum", Value::Array(values)) = (untyped, k.as_str(), &v) {
            // Values of no branch's type: no value of the anyOf could be one.
            let none: Vec<String> = values
                .iter()
                .filter(|x| !x.is_null() && !types.iter().any(|ts| ts.iter().any(|t| has_type(x, t))))
                .map(crate::text::to_string)
                .collect();
            if !none.is_empty() {
                message.push_str(&format!("; its values of no branch's type removed (no value of the anyOf could be one): {}", none.join(", ")));
            }
        }
        if !emptied.is_empty() {
            message.push_str(&format!("; branches {} have none of its values, and allow no value", emptied.join(", ")));
        }
        cx.change("gemini/anyof-keyword", message);
    }
}

/// The types of a branch of an anyOf as its lowering reads them, for [`distribute_keywords`]
/// (none: it cannot tell): its own (`null` aside); else those of its `enum`/`const` values
/// (which make it a string of any of them) where the node has no type; else the node's
/// (`node_types`), which an untyped branch takes; else, for a branch that is a union itself
/// (`anyOf`, else `oneOf`, without `allOf` or `$ref`), those of its own branches, told the same
/// way (a keyword that goes into it is distributed again, by its own lowering, into those of
/// its branches of the types it applies to); else the type inferred from its keywords.
fn branch_types(b: &Value, node_types: &[&'static str], depth: usize) -> Vec<String> {
    let Value::Object(bo) = b else { return Vec::new() };
    let own: Vec<String> = types_of(bo).into_iter().filter(|t| *t != "null").map(str::to_owned).collect();
    let values = match (bo.find("const"), bo.find("enum")) {
        (Some(c), _) => Some(std::slice::from_ref(c)),
        (None, Some(Value::Array(e))) => Some(e.as_slice()),
        _ => None,
    };
    if !own.is_empty() {
        own
    } else if let Some(values) = values.filter(|_| node_types.is_empty()) {
        // The types of its own values (the lowering makes it a string, of any of them).
        let mut types: Vec<String> = Vec::new();
        for v in values.iter().filter(|v| !v.is_null()) {
            let t = if has_type(v, "integer") { "integer" } else { crate::model::json_type(v) };
            if !types.iter().any(|x| x == t) {
                types.push(t.to_owned());
            }
        }
        types
    } else if !node_types.is_empty() {
        node_types.iter().map(|t| (*t).to_owned()).collect()
    } else if ["allOf", "$ref"].iter().any(|k| bo.has(k)) || depth >= 16 {
        Vec::new()
    } else if let Some(Value::Array(inner)) = bo.find("anyOf").or_else(|| bo.find("oneOf")) {
        let mut types: Vec<String> = Vec::new();
        for t in inner.iter().flat_map(|b| branch_types(b, &[], depth + 1)) {
            if !types.contains(&t) {
                types.push(t);
            }
        }
        types
    } else if bo.has("anyOf") || bo.has("oneOf") {
        Vec::new()
    } else {
        infer_type(bo).map(|t| vec![t.to_owned()]).unwrap_or_default()
    }
}

/// Whether `v` is a value of JSON Schema type `t` (an integral number is an integer).
fn has_type(v: &Value, t: &str) -> bool {
    match (t, v) {
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0),
        (t, v) => crate::model::json_type(v) == t,
    }
}

/// Adds keyword `k: v` to branch `b`, where both must hold: bounds the tighter of the two, any
/// other value that differs with the branch's own under `allOf` (which the lowering merges).
fn both_hold(b: &mut JsonObject, k: &str, v: &Value) {
    if k.ends_with("imum") && crate::schema::has_draft4_exclusive(b) {
        // The branch's own exclusive flag stays with its own bound.
        crate::schema::draft4_exclusives(b);
    }
    let Some(mine) = b.get(k) else {
        b.insert(k.to_owned(), v.clone());
        return;
    };
    if mine == v {
        return;
    }
    let lower = matches!(k, "minimum" | "exclusiveMinimum" | "minLength" | "minItems" | "minProperties");
    let upper = matches!(k, "maximum" | "exclusiveMaximum" | "maxLength" | "maxItems" | "maxProperties");
    if let (true, Some(x), Some(y)) = (lower || upper, mine.as_f64(), v.as_f64()) {
        if (lower && y > x) || (upper && y < x) {
            b.insert(k.to_owned(), v.clone());
        }
        return;
    }
    let branch = std::mem::take(b);
    b.insert("allOf".to_owned(), Value::Array(vec![Value::Object(branch), object([(k, v.clone())])]));
}

/// A copy of `o` restricted to type `t`: the keywords that apply to `t` plus annotations, its
/// `enum` the values of type `t` (`false` where there are none: no value of `t` is allowed).
fn branch_for_type(o: &JsonObject, t: &str) -> Value {
    let mut b: JsonObject = o.iter().filter(|(k, v)| keyword_applies(k, v, t) == Some(true)).map(|(k, v)| (k.clone(), v.clone())).collect();
    if let Some(Value::Array(values)) = b.get_mut("enum") {
        values.retain(|v| has_type(v, t));
        if values.is_empty() {
            return Value::Bool(false);
        }
    }
    b.put("type", Value::String(t.into()));
    Value::Object(b)
}

/// An array node's `unevaluatedItems` (without `items`), `evaluated` what the other keywords
/// evaluate ([`evaluated_items`]). Where that is the node's own tuple (`allOf` merged), it says
/// what the items past the tuple may be, as `items` does: it is read as `items` (a closed tuple
/// then has at most as many items as it lists). Where every item is evaluated it limits nothing
/// (removed as any other keyword). Elsewhere which items it limits depends on the array, which
/// Gemini cannot say: a schema is described as before, a closing `false` is reported as lost.
fn unevaluated_items(o: &mut JsonObject, evaluated: Evaluated, cx: &mut Cx) {
    let own = o.find("prefixItems").and_then(Value::as_array).map(Vec::len);
    match (evaluated, o.find("unevaluatedItems")) {
        (Evaluated::Prefix(n), Some(u @ (Value::Bool(_) | Value::Object(_)))) if n == own.unwrap_or(0) => {
            let (rule, message) = match (u, own) {
                (Value::Bool(false), Some(n)) => (
                    "gemini/closed-tuple",
                    format!("a tuple closed by `unevaluatedItems: false` cannot be said in Gemini's `parameters` (no tuples): read as `items: false`, at most its {n} item{}, each any of the tuple's schemas (their order described)", if n == 1 { "" } else { "s" }),
                ),
                (Value::Bool(false), None) => ("gemini/closed-tuple", "`unevaluatedItems: false` with no other keyword evaluating items: no item allowed, read as `items: false`".owned()),
                _ => ("gemini/unevaluated-items", "`unevaluatedItems` says what the items past any tuple may be: read as `items`".owned()),
            };
            let u = o.take("unevaluatedItems").unwrap_or_default();
            o.put("items", u);
            cx.change(rule, message);
        }
        (Evaluated::Prefix(_) | Evaluated::Unknown, Some(Value::Bool(false))) => {
            let beside = ["contains", "anyOf", "if", "$ref", "$dynamicRef"].into_iter().find(|k| o.has(k)).unwrap_or("allOf");
            cx.problem(
                "gemini/closed-tuple",
                format!("`unevaluatedItems: false` beside `{beside}` closes the array after the items the other keywords evaluate, which depend on the array: Gemini's `parameters` cannot say it (no tuples); removed, the items it closed out are not limited (parametersJsonSchema keeps it)"),
            );
        }
        _ => {}
    }
}

fn infer_type(o: &JsonObject) -> Option<&'static str> {
    let has = |k: &str| o.has(k);
    if has("properties") || has("required") || has("additionalProperties") || has("patternProperties") {
        Some("object")
    } else if has("items") || has("prefixItems") || has("minItems") || has("maxItems") {
        Some("array")
    } else if let Some(Value::Array(e)) = o.find("enum") {
        let non_null: Vec<&Value> = e.iter().filter(|v| !v.is_null()).collect();
        if !non_null.is_empty() && non_null.iter().all(|v| v.is_boolean()) {
            Some("boolean")
        } else if !non_null.is_empty() && non_null.iter().all(|v| v.is_i64() || v.is_u64()) {
            Some("integer")
        } else if !non_null.is_empty() && non_null.iter().all(|v| v.is_number()) {
            Some("number")
        } else {
            Some("string")
        }
    } else if has("pattern") || has("minLength") || has("maxLength") || has("format") {
        Some("string")
    } else if has("minimum") || has("maximum") || has("exclusiveMinimum") || has("exclusiveMaximum") || has("multipleOf") {
        Some("number")
    } else {
        None
    }
}

fn finish_hints(out: &mut JsonObject, hints: Hints) {
    if !hints.0.is_empty() {
        append_description(out, &format!("({})", hints.0.join("; ")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use crate::schema::{process_json_schema, Limits};

    fn run_mode(schema: Value, vertex: bool, mode: GeminiMode) -> (Compiled, Cx) {
        let mut cx = Cx::new(Limits::default());
        let (root, _) = process_json_schema(&schema, &mut cx);
        let opts = SchemaOptions { gemini_mode: mode, ..SchemaOptions::default() };
        (compile(root, &opts, vertex, &mut cx).unwrap(), cx)
    }

    /// `true` is rewritten as `{}` is, and said as that is; an open map spelt
    /// `unevaluatedProperties` is the `gemini/open-map` problem one spelt
    /// `additionalProperties` is (s25e F6, F7).
    #[test]
    fn true_and_unevaluated_open_maps_are_reported() {
        for vertex in [false, true] {
            let (_, cx) = run_mode(json!({"type":"object","properties":{"a":true,"b":{"type":"array","items":true},"c":{"anyOf":[true,{"type":"string"}]},"d":{}}}), vertex, GeminiMode::Parameters);
            let any: Vec<&str> = cx.changes.iter().filter(|d| d.rule == "gemini/any").map(|d| d.path.as_str()).collect();
            assert_eq!(any, ["/properties/a", "/properties/b/items", "/properties/c/anyOf/0", "/properties/d"], "{:?}", cx.changes);
            for open in ["additionalProperties", "unevaluatedProperties"] {
                let (_, cx) = run_mode(json!({"type":"object","properties":{"m":{"type":"object",open:{"type":"integer"}}}}), vertex, GeminiMode::Parameters);
                assert!(cx.problems.iter().any(|d| d.rule == "gemini/open-map" && d.path == "/properties/m"), "{open}: {:?}", cx.problems);
            }
            let (_, cx) = run_mode(json!({"type":"object","properties":{"m":{"type":"object","additionalProperties":false,"unevaluatedProperties":true}}}), vertex, GeminiMode::Parameters);
            assert!(!cx.problems.iter().any(|d| d.rule == "gemini/open-map"), "{:?}", cx.problems);
        }
    }

    /// A tuple folded into one `items` (`anyOf` of its positions) maps each position back by its
    /// own schema: a string at a string position stays a string though an enum elsewhere in the
    /// tuple takes it, and the folding's own collision goes unreported (s25e F5).
    #[test]
    fn tuple_items_are_mapped_back_by_position() {
        for vertex in [false, true] {
            for pair in [
                json!({"type":"array","prefixItems":[{"type":"integer","enum":[1,2]},{"type":"string"}],"items":false}),
                json!({"type":"array","items":[{"enum":[1,2]},{"type":"string"}],"additionalItems":false}),
                json!({"type":"array","prefixItems":[{"type":"integer","enum":[1,2]},{"type":"string"}],"items":{"type":"integer","enum":[7]}}),
            ] {
                let (c, cx) = run_mode(json!({"type":"object","properties":{"pair":pair.clone()},"required":["pair"]}), vertex, GeminiMode::Parameters);
                assert_eq!(c.plan.apply(json!({"pair":["1","2"]})), json!({"pair":[1,"2"]}), "{pair}");
                assert_eq!(c.plan.apply(json!({"pair":[1,"1"]})), json!({"pair":[1,"1"]}), "{pair}");
                assert!(!cx.problems.iter().any(|d| d.rule == "gemini/enum-collision"), "{pair}: {:?}", cx.problems);
                // Through the plan's JSON form (a name map) as well.
                let read = ArgPlan::read(&c.plan.to_value()).unwrap();
                assert_eq!(read.apply(json!({"pair":["2","x"]})), json!({"pair":[2,"x"]}), "{pair}");
            }
            // The rest's plan holds past the leading items.
            let (c, _) = run_mode(json!({"type":"object","properties":{"t":{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer","enum":[7]}}}}), vertex, GeminiMode::Parameters);
            assert_eq!(c.plan.apply(json!({"t":["7","7","7"]})), json!({"t":["7",7,7]}));
        }
    }

    /// An enum of numbers beside a branch of strings: the model's "1" is sent as 1 whichever
    /// branch it meant, which the report says.
    #[test]
    fn enum_strings_that_another_branch_takes_are_reported() {
        let (_, cx) = run_mode(json!({"type":"object","properties":{"v":{"anyOf":[{"type":"integer","enum":[1,2]},{"type":"string"}]}}}), false, GeminiMode::Parameters);
        let found: Vec<&str> = cx.problems.iter().filter(|d| d.rule == "gemini/enum-collision").map(|d| d.message.as_str()).collect();
        assert_eq!(found.len(), 2, "{:?}", cx.problems);
        assert!(found[0].contains("\"1\"") && found[1].contains("\"2\""), "{found:?}");
        // A string branch whose enum holds other strings takes none of them.
        let (_, cx) = run_mode(json!({"type":"object","properties":{"v":{"anyOf":[{"type":"integer","enum":[1]},{"type":"string","enum":["a"]}]}}}), false, GeminiMode::Parameters);
        assert!(!cx.problems.iter().any(|d| d.rule == "gemini/enum-collision"), "{:?}", cx.problems);
    }

    /// A keyword beside an anyOf that constrains some of its branches' types goes into those
    /// branches, as a type list's keywords go into the branch of each type: the report says
    /// where, and no longer that Gemini lacks the keyword.
    #[test]
    fn keywords_beside_any_of_go_into_the_branches_they_apply_to() {
        let (s, _, cx) = run(json!({"type":"object","properties":{
            "viaAnyOf":{"anyOf":[{"type":"string"},{"type":"number"}],"minimum":3},
            "viaTypeArray":{"type":["string","number"],"minimum":3},
            "len":{"anyOf":[{"type":"integer"},{"type":"string","maxLength":9}],"maxLength":5},
            "tighter":{"anyOf":[{"type":"number","minimum":5},{"type":"string"}],"minimum":3},
            "none":{"anyOf":[{"type":"string"},{"type":"boolean"}],"minimum":3}}}));
        let p = &s["properties"];
        assert_eq!(p["viaAnyOf"], json!({"anyOf":[{"type":"string"},{"type":"number","minimum":3}]}));
        assert_eq!(p["viaAnyOf"], p["viaTypeArray"]);
        assert_eq!(p["len"], json!({"anyOf":[{"type":"integer"},{"type":"string","maxLength":5}]}));
        assert_eq!(p["tighter"]["anyOf"][0], json!({"type":"number","minimum":5}));
        assert_eq!(p["none"], json!({"anyOf":[{"type":"string"},{"type":"boolean"}]}));
        assert!(!cx.changes.iter().any(|d| d.rule == "gemini/strip-keyword"), "{:?}", cx.changes);
        let said = |path: &str| cx.changes.iter().find(|d| d.path == path && d.rule == "gemini/anyof-keyword").map(|d| d.message.clone()).unwrap_or_default();
        assert_eq!(said("/properties/viaAnyOf"), "`minimum` beside anyOf moved into the branches it applies to (1): a Gemini node has either type or anyOf");
        assert!(said("/properties/none").contains("applies to none of its branches' types"));
        // A branch of no type the lowering can tell keeps the keyword described on the node.
        let (s, _, cx) = run(json!({"type":"object","properties":{"u":{"anyOf":[{"type":"string"},{"allOf":[{"type":"string"}]}],"maxLength":4}}}));
        assert_eq!(s["properties"]["u"]["anyOf"][0], json!({"type":"string","maxLength":4}));
        assert!(s["properties"]["u"]["description"].as_str().is_some_and(|d| d.contains('4')), "{s}");
        assert!(cx.changes.iter().any(|d| d.rule == "gemini/anyof-keyword" && d.message.contains("moved into the branches it applies to (0); for the branches of no type")), "{:?}", cx.changes);
    }

    /// A type list beside an anyOf whose branches have no type: each branch has every listed
    /// type (split by type, each with its keywords that apply), not the first one only, and a
    /// keyword beside them goes into the branches of its type.
    #[test]
    fn untyped_branches_under_a_type_list_keep_every_type() {
        let (s, _, cx) = run(json!({"type":"object","properties":{
            "u":{"type":["string","number"],"anyOf":[{"minLength":2},{"maximum":10}],"minimum":3}}}));
        let u = &s["properties"]["u"];
        assert_eq!(u, &json!({"anyOf":[{"type":"string","minLength":2},{"type":"number","minimum":3},{"type":"string"},{"type":"number","minimum":3,"maximum":10}]}), "{s}");
        assert!(!cx.changes.iter().any(|d| d.message.contains("applies to none")), "{:?}", cx.changes);
        assert!(cx.changes.iter().any(|d| d.rule == "gemini/anyof-keyword" && d.message.starts_with("`minimum` beside anyOf moved into the branches it applies to (0, 1)")), "{:?}", cx.changes);
    }

    /// An enum beside an anyOf goes into each branch as the values of its types: a branch of
    /// another type offers none of the others, values of no branch's type go (no value of the
    /// union could be one), said, and a branch left without a value goes.
    #[test]
    fn an_enum_beside_any_of_goes_into_each_branch_as_its_values() {
        let (s, plan, cx) = run(json!({"type":"object","properties":{
            "u":{"anyOf":[{"type":"string","enum":["a","b"]},{"type":"integer"}],"enum":["b","c",1,2.5]},
            "w":{"anyOf":[{"type":"string"},{"type":"boolean"}],"enum":["x"]},
            "t":{"type":["string","integer"],"enum":["a",1,2.5]}}}));
        let p = &s["properties"];
        assert_eq!(p["u"], json!({"anyOf":[{"type":"string","enum":["b"]},{"type":"string","enum":["1"]}]}), "{s}");
        assert_eq!(p["w"], json!({"anyOf":[{"type":"string","enum":["x"]}]}), "{s}");
        assert_eq!(p["t"], json!({"anyOf":[{"type":"string","enum":["a"]},{"type":"string","enum":["1"]}]}), "{s}");
        assert_eq!(plan.apply(json!({"u":"1","t":"1"})), json!({"u":1,"t":1}));
        let said = |path: &str, rule: &str| cx.changes.iter().filter(|d| d.path == path && d.rule == rule).map(|d| d.message.clone()).collect::<Vec<_>>().join("\n");
        let u = said("/properties/u", "gemini/anyof-keyword");
        assert!(u.contains("(0, 1), each with the values of its types") && u.contains("of no branch's type removed (no value of the anyOf could be one): 2.5"), "{u}");
        assert!(said("/properties/w", "gemini/anyof-keyword").contains("branches 1 have none of its values"), "{:?}", cx.changes);
        assert!(said("/properties/t", "gemini/type-array").contains("enum values of none of the types removed (no value could have them): 2.5"), "{:?}", cx.changes);
        // A branch typed by its own values alone keeps the values of each of their types.
        let (s, _, cx) = run(json!({"type":"object","properties":{"u":{"anyOf":[{"enum":[1,2,"b"]},{"type":"string"}],"enum":[1,"a","b",2.5]}}}));
        assert_eq!(s["properties"]["u"], json!({"anyOf":[{"type":"string","enum":["1","b"]},{"type":"string","enum":["a","b"]}]}), "{s}");
        assert!(!cx.problems.iter().any(|d| d.rule == "gemini/allof-conflict" || d.rule == "schema/disjoint-values"), "{:?}", cx.problems);
    }

    /// Draft 4's boolean `exclusiveMinimum` beside an anyOf goes into the branches with its
    /// `minimum`, as the bound it makes exclusive, and never qualifies a branch's own bound.
    #[test]
    fn a_draft4_exclusive_bound_moves_with_its_bound() {
        let (s, _, _) = run(json!({"type":"object","properties":{
            "u":{"anyOf":[{"type":"number","minimum":5},{"type":"string"}],"minimum":3,"exclusiveMinimum":true},
            "v":{"anyOf":[{"type":"number","minimum":5,"exclusiveMinimum":true},{"type":"string"}],"minimum":7}}}));
        let p = &s["properties"];
        assert_eq!(p["u"]["anyOf"][0], json!({"type":"number","minimum":5,"description":"(must be > 3)"}), "{s}");
        assert_eq!(p["v"]["anyOf"][0], json!({"type":"number","minimum":7,"description":"(must be > 5)"}), "{s}");
    }

    /// A numeric `format` beside an anyOf goes into the branches of its type, where Gemini
    /// keeps it (`int32` on INTEGER), not into a string's or nowhere.
    #[test]
    fn a_numeric_format_beside_any_of_goes_to_the_numbers() {
        let (s, _, cx) = run(json!({"type":"object","properties":{
            "u":{"anyOf":[{"type":"integer"},{"type":"boolean"}],"format":"int32"},
            "v":{"anyOf":[{"type":"integer"},{"type":"string"}],"format":"int64"},
            "w":{"anyOf":[{"type":"number"},{"type":"string"}],"format":"date-time"}}}));
        let p = &s["properties"];
        assert_eq!(p["u"], json!({"anyOf":[{"type":"integer","format":"int32"},{"type":"boolean"}]}), "{s}");
        assert_eq!(p["v"], json!({"anyOf":[{"type":"integer","format":"int64"},{"type":"string"}]}), "{s}");
        assert_eq!(p["w"], json!({"anyOf":[{"type":"number"},{"type":"string","format":"date-time"}]}), "{s}");
        assert!(!cx.changes.iter().any(|d| d.message.contains("applies to none")), "{:?}", cx.changes);
    }

    /// A union nested in a union (spliced into it), a branch's property that is a union, and a
    /// property named with a `/` are searched as any other place: each collision is reported.
    #[test]
    fn enum_collisions_are_found_in_nested_unions_and_any_name() {
        let collisions = |u: Value| {
            let (_, plan, cx) = run(json!({"type":"object","properties":{"u":u},"required":["u"]}));
            let found: Vec<String> = cx.problems.iter().filter(|d| d.rule == "gemini/enum-collision").map(|d| d.message.clone()).collect();
            (found, plan)
        };
        let flat = collisions(json!({"anyOf":[{"enum":[1]},{"type":"boolean"},{"type":"string"}]}));
        let nested = collisions(json!({"anyOf":[{"anyOf":[{"enum":[1]},{"type":"boolean"}]},{"type":"string"}]}));
        assert_eq!((flat.0.len(), nested.0.len()), (1, 1), "{flat:?} {nested:?}");
        assert_eq!(nested.1.apply(json!({"u":"1"})), json!({"u":1}));
        let (found, _) = collisions(json!({"anyOf":[
            {"type":"object","properties":{"p":{"anyOf":[{"enum":[1]},{"type":"boolean"}]}}},
            {"type":"object","properties":{"p":{"type":"string"}}}]}));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("of branch 0 at `p`"), "{found:?}");
        // `a/b` is one name, not `a` then `b` (where the second branch has an integer).
        let (found, _) = collisions(json!({"anyOf":[
            {"type":"object","properties":{"a/b":{"enum":[1,2]}}},
            {"type":"object","properties":{"a/b":{"type":"string"},"a":{"type":"object","properties":{"b":{"type":"integer"}}}}}]}));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].contains("at `a~1b`"), "{found:?}");
        // A property named `items` is no array's items.
        let (found, _) = collisions(json!({"anyOf":[
            {"type":"object","properties":{"items":{"enum":[1]}}},
            {"type":"object","properties":{"items":{"type":"string"}}}]}));
        assert_eq!(found.len(), 1, "{found:?}");
    }

    /// The collision check reads each place of each branch once and compares each value with
    /// the branches that take it there, not with every branch: 300 variants that share a
    /// 64-value integer enum (no required discriminator, so every two may overlap) take work
    /// in proportion to their values, where comparing every value with every other branch
    /// took about 300 x 300 x 64 steps (46 s in the browser).
    #[test]
    fn the_enum_collision_check_is_linear_in_the_values() {
        let (n, m) = (300, 64);
        let values: Vec<Value> = (0..m).map(Value::from).collect();
        let branches: Vec<Value> = (0..n).map(|i| json!({"type":"object","properties":{"kind":{"const":format!("k{i}")},"level":{"enum":values}}})).collect();
        let (_, plan, cx) = run(json!({"type":"object","properties":{"u":{"anyOf":branches}}}));
        assert!(!cx.problems.iter().any(|d| d.rule == "gemini/enum-collision"), "{:?}", cx.problems.first());
        let u = plan.properties.get("u").unwrap();
        assert_eq!(u.any_of.len(), n);
        let (found, work) = collisions(&u.any_of);
        assert!(found.is_empty());
        assert!(work <= 3 * n * m, "{work} steps for {n} variants of {m} values");
        // And where half the variants take the field as any string, each value is reported.
        let half: Vec<Value> = (0..n)
            .map(|i| match i % 2 {
                0 => json!({"type":"object","properties":{"kind":{"const":format!("k{i}")},"level":{"enum":values}}}),
                _ => json!({"type":"object","properties":{"kind":{"const":format!("k{i}")},"level":{"type":"string"}}}),
            })
            .collect();
        let (_, plan, cx) = run(json!({"type":"object","properties":{"u":{"anyOf":half}}}));
        let (found, work) = collisions(&plan.properties.get("u").unwrap().any_of);
        assert_eq!(found.len(), n / 2 * m);
        assert_eq!(cx.problems.iter().filter(|d| d.rule == "gemini/enum-collision").count(), n / 2 * m);
        assert!(work <= 3 * n * m, "{work} steps");
    }

    /// Variants of a union whose field shares a name, one an enum of numbers (stringified): a
    /// value of the other variant keeps its string, and where nothing tells the variants apart
    /// the collision is reported at that field, as one at the branch's own level is.
    #[test]
    fn nested_enum_strings_map_back_by_the_variant() {
        let variant = |kind: &str, level: Value| json!({"type":"object","properties":{"kind":{"const":kind},"level":level},"required":["kind","level"]});
        let u = json!({"anyOf":[variant("text", json!({"type":"string","enum":["1","2","high"]})), variant("num", json!({"type":"integer","enum":[1,2,3]}))]});
        let (_, plan, cx) = run(json!({"type":"object","properties":{"u":u},"required":["u"]}));
        assert_eq!(plan.apply(json!({"u":{"kind":"text","level":"1"}})), json!({"u":{"kind":"text","level":"1"}}));
        assert_eq!(plan.apply(json!({"u":{"kind":"num","level":"1"}})), json!({"u":{"kind":"num","level":1}}));
        assert!(!cx.problems.iter().any(|d| d.rule == "gemini/enum-collision"), "{:?}", cx.problems);
        // A plain string `level` in the text variant, told apart by `kind` too.
        let u = json!({"anyOf":[variant("text", json!({"type":"string"})), variant("num", json!({"type":"integer","enum":[1,2,3]}))]});
        let (_, plan, cx) = run(json!({"type":"object","properties":{"u":u},"required":["u"]}));
        assert_eq!(plan.apply(json!({"u":{"kind":"text","level":"1"}})), json!({"u":{"kind":"text","level":"1"}}));
        assert!(!cx.problems.iter().any(|d| d.rule == "gemini/enum-collision"), "{:?}", cx.problems);
        // Without `kind`: reported where it happens.
        let u = json!({"anyOf":[{"type":"object","properties":{"level":{"type":"string"}}}, {"type":"object","properties":{"level":{"type":"integer","enum":[1,2]}}}]});
        let (_, _, cx) = run(json!({"type":"object","properties":{"u":u},"required":["u"]}));
        let found: Vec<&str> = cx.problems.iter().filter(|d| d.rule == "gemini/enum-collision").map(|d| d.message.as_str()).collect();
        assert_eq!(found.len(), 2, "{:?}", cx.problems);
        assert!(found[0].starts_with("enum value 1 of branch 1 at `level` is written as the string \"1\""), "{found:?}");
    }

    /// OpenAPI's `nullable` that is no boolean is removed and reported
    /// (`schema/bad-keyword-value`) as other values of the wrong kind are, not taken silently; a
    /// boolean one is read as ever; both APIs.
    #[test]
    fn a_nullable_that_is_no_boolean_is_reported() {
        let tools = json!([{"name":"a","inputSchema":{"type":"object","properties":{
            "port":{"type":"string","nullable":"yes"},
            "n":{"type":"string","nullable":true}}}}]);
        for provider in [crate::providers::Provider::Gemini, crate::providers::Provider::Vertex] {
            let out = crate::convert::convert(tools.clone(), provider, &crate::convert::ConvertOptions::default()).unwrap();
            let p = &out.tools[0]["functionDeclarations"][0]["parameters"]["properties"];
            assert_eq!(p["port"], json!({"type":"STRING"}), "{p}");
            assert_eq!(p["n"], json!({"type":"STRING","nullable":true}), "{p}");
            let bad: Vec<&str> = out.report.tools[0].changes.iter().filter(|d| d.rule == "schema/bad-keyword-value").map(|d| d.path.as_str()).collect();
            assert_eq!(bad, ["/properties/port/nullable"], "{:?}", out.report.tools[0].changes);
            let json = crate::convert::convert_json(&tools.to_string(), provider, &crate::convert::ConvertOptions::default()).unwrap();
            assert_eq!(json, out.tools.to_string(), "{provider:?}");
        }
    }

    /// Keyword values of the wrong kind are removed as `schema/bad-keyword-value`, as for every
    /// other provider, not described as keywords Gemini lacks (probe pQ 2); valid ones stay, a
    /// draft 4 boolean bound is read as its number, and the JSON API (the borrowed tree's
    /// lowering) gives the same tools as the general path.
    #[test]
    fn keyword_values_of_the_wrong_kind_are_removed_not_described() {
        let tools = json!([{"name":"a","inputSchema":{"type":"object","properties":{
            "x":{"type":"integer","minimum":0,"maximum":null},
            "s":{"type":"string","maxLength":-1,"minLength":"3","pattern":5},
            "n":{"type":"number","multipleOf":0,"maxLength":null},
            "ok":{"type":"string","maxLength":5,"minLength":2.0},
            "d4":{"type":"number","minimum":0,"exclusiveMinimum":true}}}}]);
        for provider in [crate::providers::Provider::Gemini, crate::providers::Provider::Vertex] {
            let out = crate::convert::convert(tools.clone(), provider, &crate::convert::ConvertOptions::default()).unwrap();
            let p = &out.tools[0]["functionDeclarations"][0]["parameters"]["properties"];
            assert_eq!(p["x"], json!({"type":"INTEGER","minimum":0}), "{p}");
            assert_eq!(p["s"], json!({"type":"STRING"}), "{p}");
            assert_eq!(p["n"], json!({"type":"NUMBER"}), "{p}");
            assert_eq!(p["ok"], json!({"type":"STRING","maxLength":"5","minLength":"2"}), "{p}");
            assert_eq!(p["d4"], json!({"type":"NUMBER","description":"(must be > 0)"}), "{p}");
            let changes = &out.report.tools[0].changes;
            let bad: Vec<(&str, &str)> = changes.iter().filter(|d| d.rule == "schema/bad-keyword-value").map(|d| (d.path.as_str(), d.message.as_str())).collect();
            assert_eq!(
                bad,
                [
                    ("/properties/x/maximum", "`maximum` was null, not a number; removed"),
                    ("/properties/s/maxLength", "`maxLength` was -1, not a non-negative integer; removed"),
                    ("/properties/s/minLength", "`minLength` was \"3\", not a non-negative integer; removed"),
                    ("/properties/s/pattern", "`pattern` was 5, not a regular expression; removed"),
                    ("/properties/n/multipleOf", "`multipleOf` was 0, not a number above zero; removed"),
                    ("/properties/n/maxLength", "`maxLength` was null, not a non-negative integer; removed"),
                ],
                "{changes:?}"
            );
            assert!(!changes.iter().any(|d| d.message.contains("not supported by Gemini") && (d.message.contains("null") || d.message.contains("maximum"))), "{changes:?}");
            let json = crate::convert::convert_json(&tools.to_string(), provider, &crate::convert::ConvertOptions::default()).unwrap();
            assert_eq!(json, out.tools.to_string(), "{provider:?}");
        }
    }

    /// A map below the root becomes an object Gemini's model can give no key: a problem, as at
    /// the root; an object with properties, or closed, is none.
    #[test]
    fn nested_open_maps_are_problems() {
        for open in [json!({"type":"object","additionalProperties":{"type":"string"}}), json!({"type":"object","patternProperties":{"^x":{}}}), json!({"type":"object","additionalProperties":true})] {
            let (_, cx) = run_mode(json!({"type":"object","properties":{"m":open,"k":{"type":"string"}}}), false, GeminiMode::Parameters);
            assert!(cx.problems.iter().any(|d| d.rule == "gemini/open-map" && d.path == "/properties/m"), "{open}: {:?}", cx.problems);
        }
        let (_, cx) = run_mode(json!({"type":"object","properties":{"m":{"type":"object","properties":{"a":{}},"additionalProperties":true},"c":{"type":"object","additionalProperties":false}}}), false, GeminiMode::Parameters);
        assert!(!cx.problems.iter().any(|d| d.rule == "gemini/open-map"), "{:?}", cx.problems);
    }

    /// A tuple closed by `unevaluatedItems: false` is read as closed by `items: false` (Gemini
    /// has no tuples: at most as many items as it lists), and the report says so; where what it
    /// closes depends on the array (`contains`) it is reported lost. The JSON API, which lowers
    /// most schemas from the borrowed tree, gives the same tools.
    #[test]
    fn tuples_closed_by_unevaluated_items_are_reported() {
        for vertex in [false, true] {
            let (c, cx) = run_mode(
                json!({"type":"object","properties":{
                    "t":{"type":"array","prefixItems":[{"type":"string"}],"unevaluatedItems":false},
                    "rest":{"type":"array","prefixItems":[{"type":"string"}],"unevaluatedItems":{"type":"integer"}},
                    "none":{"type":"array","unevaluatedItems":false},
                    "c":{"type":"array","contains":{"type":"string"},"unevaluatedItems":false},
                    "all":{"type":"array","allOf":[{"items":{"type":"string"}}],"unevaluatedItems":false}}}),
                vertex,
                GeminiMode::Parameters,
            );
            let p = &c.schema.unwrap()["properties"];
            assert_eq!((p["t"]["items"].clone(), p["t"]["maxItems"].clone()), (json!({"type":"string"}), json!(1)), "{p}");
            assert!(p["rest"].get("maxItems").is_none() && p["rest"]["items"]["anyOf"].as_array().is_some_and(|b| b.len() == 2), "{p}");
            assert_eq!(p["none"]["maxItems"], json!(0), "{p}");
            assert!(p["c"].get("maxItems").is_none() && p["all"].get("maxItems").is_none(), "{p}");
            let rules = |path: &str| -> Vec<&str> { cx.changes.iter().filter(|d| d.path == path).map(|d| d.rule).collect() };
            assert!(rules("/properties/t").contains(&"gemini/closed-tuple"), "{:?}", cx.changes);
            assert!(rules("/properties/none").contains(&"gemini/closed-tuple"), "{:?}", cx.changes);
            assert!(rules("/properties/rest").contains(&"gemini/unevaluated-items"), "{:?}", cx.changes);
            let problems: Vec<(&str, &str)> = cx.problems.iter().map(|d| (d.rule, d.path.as_str())).collect();
            assert_eq!(problems, [("gemini/closed-tuple", "/properties/c")], "{:?}", cx.problems);
        }
        let tools = json!([{"name":"t","inputSchema":{"type":"object","properties":{
            "t":{"type":"array","prefixItems":[{"type":"string"}],"unevaluatedItems":false},
            "rest":{"type":"array","prefixItems":[{"type":"string"}],"unevaluatedItems":{"type":"integer"}},
            "n":{"type":"object","properties":{"u":{"type":"array","items":{"type":"string"},"unevaluatedItems":false}}}}}}]);
        for provider in [crate::providers::Provider::Gemini, crate::providers::Provider::Vertex] {
            let opts = crate::convert::ConvertOptions::default();
            let general = crate::convert::convert(tools.clone(), provider, &opts).unwrap().tools.to_string();
            assert_eq!(crate::convert::convert_json(&tools.to_string(), provider, &opts).unwrap(), general, "{provider:?}");
        }
    }

    /// `examples` becomes `example`, which holds one value: the others are described, and an
    /// `examples` that is not a list is removed (`schema/bad-keyword-value`, as for every
    /// provider), an empty list too, each reported (probe F6); the same on the
    /// borrowed tree.
    #[test]
    fn examples_past_the_first_are_described_and_reported() {
        let tools = json!([{"name":"t","inputSchema":{"type":"object","properties":{
            "a":{"type":"string","examples":["first","second","third"]},"b":{"type":"string","examples":"x"},"c":{"type":"integer","examples":[]},
            "d":{"type":"string","examples":["only"]}}}}]);
        for provider in [crate::providers::Provider::Gemini, crate::providers::Provider::Vertex] {
            let opts = crate::convert::ConvertOptions::default();
            let out = crate::convert::convert(tools.clone(), provider, &opts).unwrap();
            let p = &out.tools[0]["functionDeclarations"][0]["parameters"]["properties"];
            assert_eq!(p["a"]["example"], "first");
            assert!(p["a"]["description"].as_str().unwrap().contains("\"second\""), "{p}");
            assert_eq!(p["d"]["example"], "only");
            let changes = &out.report.tools[0].changes;
            let at = |path: &str| changes.iter().filter(|d| d.path == path).map(|d| d.rule).collect::<Vec<_>>();
            assert_eq!(at("/properties/a"), ["gemini/examples"], "{changes:?}");
            assert_eq!(at("/properties/b/examples"), ["schema/bad-keyword-value"], "{changes:?}");
            assert_eq!(at("/properties/c"), ["gemini/strip-keyword"], "{changes:?}");
            assert!(at("/properties/d").is_empty(), "{changes:?}");
            assert_eq!(crate::convert::convert_json(&tools.to_string(), provider, &opts).unwrap(), out.tools.to_string(), "{provider:?}");
        }
    }

    /// OpenAPI's `example` beside `examples` (in either order): Gemini's one `example` is the
    /// node's own, and every value of `examples` it is not is described and reported. Each used
    /// to overwrite the other, whichever came last winning, one value lost (without a word when
    /// `examples` had one) and the report saying the first of `examples` was kept.
    #[test]
    fn example_beside_examples_loses_no_value() {
        let tools = json!([{"name":"t","inputSchema":{"type":"object","properties":{
            "a":{"type":"string","example":"e","examples":["a","b"]},"b":{"type":"string","examples":["a","b"],"example":"e"},
            "c":{"type":"string","example":"e","examples":["a"]},"d":{"type":"string","examples":["a"],"example":"e"},
            "e":{"type":"string","example":"e","examples":["e","f"]},"f":{"type":"integer","examples":[2],"example":2},
            "g":{"type":"string","example":"e","examples":[]}}}}]);
        for provider in [crate::providers::Provider::Gemini, crate::providers::Provider::Vertex] {
            let opts = crate::convert::ConvertOptions::default();
            let out = crate::convert::convert(tools.clone(), provider, &opts).unwrap();
            let p = &out.tools[0]["functionDeclarations"][0]["parameters"]["properties"];
            let changes = &out.report.tools[0].changes;
            let at = |path: &str| changes.iter().filter(|d| d.path == path).map(|d| (d.rule, d.message.as_str())).collect::<Vec<_>>();
            for (name, described) in [("a", Some(r#"["a","b"]"#)), ("b", Some(r#"["a","b"]"#)), ("c", Some(r#"["a"]"#)), ("d", Some(r#"["a"]"#)), ("e", Some(r#"["f"]"#)), ("f", None)] {
                let expected = if name == "f" { json!(2) } else { json!("e") };
                assert_eq!(p[name]["example"], expected, "{name}: {p}");
                let reported = at(&format!("/properties/{name}"));
                match described {
                    Some(values) => {
                        assert_eq!(p[name]["description"], format!("(other examples: {values})"), "{name}: {p}");
                        assert!(matches!(reported.as_slice(), [("gemini/examples", m)] if m.contains("`example` kept")), "{name}: {reported:?}");
                    }
                    None => {
                        assert!(p[name].get("description").is_none(), "{name}: {p}");
                        assert!(reported.is_empty(), "{name}: {reported:?}");
                    }
                }
            }
            assert_eq!(p["g"]["example"], "e");
            assert_eq!(at("/properties/g")[0].0, "gemini/strip-keyword");
            assert_eq!(crate::convert::convert_json(&tools.to_string(), provider, &opts).unwrap(), out.tools.to_string(), "{provider:?}");
        }
    }

    /// `anyOf` and `oneOf` on one node both hold: not joined into one `anyOf` (which would take
    /// `true` and `3` here), the `anyOf` kept and the `oneOf` described, reported as a problem;
    /// the same on the borrowed tree.
    #[test]
    fn one_of_beside_any_of_is_not_joined_into_it() {
        let tools = json!([{"name":"t","inputSchema":{"type":"object","properties":{"w":{
            "anyOf":[{"type":"string","maxLength":5},{"type":"integer"},{"type":"boolean"}],
            "oneOf":[{"type":"string","format":"hostname"},{"type":"integer","minimum":10}]}}}}]);
        for provider in [crate::providers::Provider::Gemini, crate::providers::Provider::Vertex] {
            let opts = crate::convert::ConvertOptions::default();
            let out = crate::convert::convert(tools.clone(), provider, &opts).unwrap();
            let w = &out.tools[0]["functionDeclarations"][0]["parameters"]["properties"]["w"];
            assert_eq!(w["anyOf"].as_array().unwrap().len(), 3, "{provider:?}: {w}");
            assert!(w.to_string().contains("exactly one of") && w.to_string().contains("hostname"), "{provider:?}: {w}");
            let r = &out.report.tools[0];
            assert!(r.problems.iter().any(|d| d.rule == "gemini/oneof-beside-anyof" && d.path == "/properties/w"), "{provider:?}: {r:?}");
            assert_eq!(crate::convert::convert_json(&tools.to_string(), provider, &opts).unwrap(), out.tools.to_string(), "{provider:?}");
        }
    }

    /// A `$ref` tuple beside the node's own shorter `prefixItems` evaluates the longer: the
    /// inlined node keeps the target's items past its own, and a closing `unevaluatedItems`
    /// closes after them (`["ab", 5]` stays valid), on both paths, through an alias too.
    #[test]
    fn referenced_tuples_longer_than_the_own_stay_open_to_their_length() {
        let tools = json!([{"name":"t","inputSchema":{"type":"object","properties":{
            "u":{"type":"array","$ref":"#/$defs/pair","prefixItems":[{"maxLength":3}],"unevaluatedItems":false},
            "a":{"type":"array","$ref":"#/$defs/alias","unevaluatedItems":false},
            "o":{"type":"array","$ref":"#/$defs/pair","prefixItems":[{"maxLength":3}],"items":false}},
            "$defs":{"pair":{"prefixItems":[{"type":"string"},{"type":"number"}]},
                     "alias":{"$ref":"#/$defs/triple","prefixItems":[{"type":"string","maxLength":2}]},
                     "triple":{"prefixItems":[{"type":"string"},{"type":"number"},{"type":"boolean"}]}}}}]);
        for provider in [crate::providers::Provider::Gemini, crate::providers::Provider::Vertex] {
            let opts = crate::convert::ConvertOptions::default();
            let general = crate::convert::convert(tools.clone(), provider, &opts).unwrap().tools;
            let p = &general[0]["functionDeclarations"][0]["parameters"]["properties"];
            let most = |k: &str| p[k]["maxItems"].to_string().trim_matches('"').to_owned();
            assert_eq!((most("u").as_str(), most("a").as_str()), ("2", "3"), "{provider:?}: {general}");
            assert_eq!(crate::convert::convert_json(&tools.to_string(), provider, &opts).unwrap(), general.to_string(), "{provider:?}");
        }
    }

    /// A nested union (its branches define a property differently in its enum only) keeps its
    /// branches, on the borrowed tree as on the general path.
    #[test]
    fn nested_unions_merge_alike_on_both_paths() {
        let tools = json!([{"name":"t","inputSchema":{"required":["p0"],"type":"object","properties":{"p0":{"type":"object","anyOf":[
            {"properties":{"kind":{"type":"string","enum":["k0"],"description":"kind 0"},"p0":{"enum":["a","b"]}}},
            {"properties":{"kind":{"type":"string","enum":["k1"],"description":"kind 1"},"p0":{}},"minProperties":1}]}}}}]);
        for provider in [crate::providers::Provider::Gemini, crate::providers::Provider::Vertex] {
            let opts = crate::convert::ConvertOptions::default();
            let general = crate::convert::convert(tools.clone(), provider, &opts).unwrap().tools.to_string();
            assert_eq!(crate::convert::convert_json(&tools.to_string(), provider, &opts).unwrap(), general, "{provider:?}");
        }
    }

    /// Draft 4's tuple without `additionalItems` leaves the items past it open: lowered as
    /// `prefixItems` without `items` is (the tuple described, `items` any value), not as `anyOf`
    /// the leading items' schemas, which would refuse the rest.
    #[test]
    fn an_open_draft4_tuple_is_lowered_as_prefix_items_alone() {
        for vertex in [false, true] {
            let (c, cx) = run_mode(
                json!({"type":"object","properties":{
                    "d4":{"type":"array","items":[{"type":"string"},{"type":"integer","enum":[1,2]}]},
                    "p":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer","enum":[1,2]}]}}}),
                vertex,
                GeminiMode::Parameters,
            );
            let p = &c.schema.unwrap()["properties"];
            assert_eq!(p["d4"], p["p"], "{p}");
            assert_eq!(p["d4"]["items"], any_value(vertex), "{p}");
            assert_eq!(p["d4"]["description"], json!("(leading items: [{\"type\":\"string\"},{\"type\":\"integer\",\"enum\":[1,2]}])"), "{p}");
            assert!(c.plan.is_empty(), "{:?}", c.plan);
            let said = |path: &str| -> Vec<&str> { cx.changes.iter().filter(|d| d.path == path).map(|d| d.rule).collect() };
            assert_eq!(said("/properties/d4"), said("/properties/p"), "{:?}", cx.changes);
            assert_eq!(said("/properties/d4"), ["gemini/strip-keyword", "gemini/add-items"], "{:?}", cx.changes);
            assert!(cx.problems.is_empty(), "{:?}", cx.problems);
        }
    }

    /// A tuple's `items` says what every item may be: the leading items' schemas and the rest's
    /// (draft 4's `additionalItems`, 2020-12's `items`); a closed one has at most as many items
    /// as it lists.
    #[test]
    fn tuples_keep_their_items_types() {
        for vertex in [false, true] {
            let (c, _) = run_mode(
                json!({"type":"object","properties":{
                    "closed":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false,"minItems":2},
                    "short":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false,"maxItems":1},
                    "rest":{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"}},
                    "draft4":{"type":"array","items":[{"type":"string"}],"additionalItems":{"type":"integer"}},
                    "draft4closed":{"type":"array","items":[{"type":"string"},{"type":"boolean"}],"additionalItems":false}}}),
                vertex,
                GeminiMode::Parameters,
            );
            let p = &c.schema.unwrap()["properties"];
            let types = |s: &Value| -> Vec<String> { s["items"]["anyOf"].as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap().to_owned()).collect() };
            assert_eq!(types(&p["closed"]), ["string", "integer"], "{p}");
            assert_eq!((p["closed"]["minItems"].clone(), p["closed"]["maxItems"].clone()), (json!(2), json!(2)), "{p}");
            assert_eq!(p["short"]["maxItems"], json!(1), "{p}");
            assert_eq!(types(&p["rest"]), ["string", "integer"], "{p}");
            assert!(p["rest"].get("maxItems").is_none(), "{p}");
            assert_eq!(types(&p["draft4"]), ["string", "integer"], "{p}");
            assert_eq!(types(&p["draft4closed"]), ["string", "boolean"], "{p}");
            assert_eq!(p["draft4closed"]["maxItems"], json!(2), "{p}");
        }
    }

    /// `minContains: 0` asks for no item matching `contains`: not described as an item that must
    /// be there; a `maxContains` beside it is the bound it says (s29f F5).
    #[test]
    fn contains_that_requires_nothing_is_not_described_as_required() {
        for vertex in [false, true] {
            let (c, cx) = run_mode(
                json!({"type":"object","properties":{
                    "tags":{"type":"array","items":{"type":"string"},"contains":{"const":"urgent"},"minContains":0},
                    "few":{"type":["array","null"],"items":{"type":"string"},"contains":{"const":"x"},"minContains":0,"maxContains":2},
                    "one":{"type":"array","items":{"type":"string"},"contains":{"const":"x"},"minContains":1}}}),
                vertex,
                GeminiMode::Parameters,
            );
            let p = &c.schema.unwrap()["properties"];
            assert_eq!(p["tags"], json!({"type":"array","items":{"type":"string"}}), "{p}");
            assert_eq!(p["few"]["description"], json!("(at most 2 items matching {\"const\":\"x\"})"), "{p}");
            assert!(p["one"]["description"].as_str().is_some_and(|d| d.contains("must contain an item matching")), "{p}");
            let said: Vec<&str> = cx.changes.iter().filter(|d| d.message.contains("`minContains: 0`")).map(|d| d.path.as_str()).collect();
            assert_eq!(said, ["/properties/tags", "/properties/few"], "{:?}", cx.changes);
        }
    }

    /// A tuple no draft reads is removed as for every other provider (`schema/bad-keyword-value`):
    /// draft 4's empty `items: []` with `additionalItems: false` (no item at all) is read as
    /// `items: false`, not as a tuple whose items can only be null (s29f F7).
    #[test]
    fn an_empty_draft4_tuple_is_removed_as_for_every_provider() {
        for vertex in [false, true] {
            let (c, cx) = run_mode(
                json!({"type":"object","properties":{
                    "e":{"type":"array","items":[],"additionalItems":false},
                    "f":{"type":"array","items":false},
                    "r":{"type":"array","items":[],"additionalItems":{"type":"integer"}}}}),
                vertex,
                GeminiMode::Parameters,
            );
            let p = &c.schema.unwrap()["properties"];
            assert_eq!(p["e"], p["f"], "{p}");
            assert_eq!(p["e"]["maxItems"], json!(0), "{p}");
            assert_eq!(p["r"], json!({"type":"array","items":{"type":"integer"}}), "{p}");
            assert!(cx.problems.is_empty(), "{:?}", cx.problems);
            let removed: Vec<&str> = cx.changes.iter().filter(|d| d.rule == "schema/bad-keyword-value").map(|d| d.path.as_str()).collect();
            assert_eq!(removed, ["/properties/e/items", "/properties/r/items"], "{:?}", cx.changes);
        }
    }

    /// Without a change log, a schema with `$ref`s inlined by the general path is lowered from a
    /// borrowed tree over it when it is within the borrowed lowering's subset (the result is
    /// then one written text), to the text the general lowering writes; outside the subset it
    /// is lowered the general way.
    #[test]
    fn inlined_schemas_are_lowered_from_a_borrowed_tree() {
        let user = json!({"type": "object", "properties": {"id": {"type": ["string", "null"], "format": "uuid"}}, "required": ["id"]});
        let inside = json!({
            "type": "object", "$defs": {"U": user, "L": {"type": "array", "items": {"$ref": "#/$defs/U"}}},
            "properties": {"a": {"$ref": "#/$defs/U"}, "b": {"$ref": "#/$defs/L"}, "c": {"$ref": "#/$defs/U", "description": "x"}, "d": {"$ref": "#/$defs/U"}}
        });
        let mut outside = inside.clone();
        outside["properties"]["e"] = json!({"allOf": [{"$ref": "#/$defs/U"}, {"description": "y"}]});
        for vertex in [false, true] {
            for (schema, borrowed) in [(inside.clone(), true), (outside.clone(), false)] {
                let written = |share: bool| {
                    let mut cx = Cx::new(Limits::default()).share_refs(share);
                    let (root, _) = process_json_schema(&schema, &mut cx);
                    let schema = compile(root, &SchemaOptions::default(), vertex, &mut cx).unwrap().schema.unwrap();
                    let mut out = Vec::new();
                    write_wire(&mut out, &schema);
                    (String::from_utf8(out).unwrap(), schema.as_object().and_then(Shared::written_text).is_some())
                };
                let (shared, whole) = written(true);
                assert_eq!(whole, borrowed, "vertex {vertex}: {shared}");
                assert_eq!(shared, written(false).0, "vertex {vertex}");
            }
        }
    }

    /// A property that an object and a branch of its `anyOf` both define: both hold, so the
    /// branch gets one schema that says both (OpenAI strict's distribution does the same).
    #[test]
    fn a_property_both_define_says_both() {
        let union = json!({"type": "object", "properties": {"q": {"type": "string", "description": "Query", "enum": ["a", "b"]}, "id": {"type": "string"}}, "required": ["q"],
            "anyOf": [{"properties": {"q": {"enum": ["b", "c"], "maxLength": 3}}, "required": ["id"]}, {"properties": {"id": {"type": "integer"}}}]});
        let (s, _, cx) = run(json!({"type": "object", "properties": {"u": union}}));
        let b = &s["properties"]["u"]["anyOf"];
        assert_eq!(b[0]["properties"]["q"]["enum"], json!(["b"]), "{b}");
        assert_eq!(b[0]["properties"]["q"]["type"], "string", "{b}");
        assert_eq!((&b[0]["properties"]["q"]["description"], &b[0]["properties"]["q"]["maxLength"]), (&json!("Query"), &json!(3)), "{b}");
        assert_eq!(b[0]["required"], json!(["id", "q"]), "{b}");
        assert!(cx.changes.iter().any(|d| d.rule == "gemini/distribute" && d.message.contains("says both")), "{:?}", cx.changes);
        // A string and an integer: no value is both; the conflict is reported, not hidden.
        assert!(cx.problems.iter().any(|d| d.rule == "gemini/allof-conflict"), "{:?}", cx.problems);
    }

    fn run(schema: Value) -> (Value, ArgPlan, Cx) {
        let (c, cx) = run_mode(schema, false, GeminiMode::Parameters);
        (c.schema.unwrap_or(Value::Null), c.plan, cx)
    }

    fn prop(schema: Value) -> Value {
        let (s, _, _) = run(json!({"type":"object","properties":{"p":schema},"required":["p"]}));
        s["properties"]["p"].clone()
    }

    /// A description joined before notes in parentheses does not put them in parentheses again.
    #[test]
    fn a_description_joined_to_notes_does_not_double_their_parentheses() {
        assert_eq!(joined_description("inner", "(format: date)"), "inner (format: date)");
        assert_eq!(joined_description("inner ", " (format: date) (maximum: 4)"), "inner (format: date) (maximum: 4)");
        assert_eq!(joined_description("(maximum: 4)", "any"), "(maximum: 4) (any)");
        assert_eq!(joined_description("Nested", "by id"), "Nested (by id)");
        assert_eq!(joined_description("Nested", "(a) or b"), "Nested ((a) or b)");
        assert_eq!(joined_description("Nested", "a) (b"), "Nested (a) (b)");
        assert_eq!(joined_description("d", "the d"), "the d");
        let p = prop(json!({"anyOf":[{"description":"inner","type":"string","anyOf":[{"minLength":1},{"format":"date"}]},{"type":"integer"}]}));
        assert_eq!(p["anyOf"][1], json!({"type":"string","description":"inner (format: date)"}), "{p}");
    }

    /// Two `allOf` branches with different `title`s: the first kept and the other reported (it was
    /// dropped without a word) as a change, a lost annotation nothing rejects, by every provider
    /// that merges `allOf` and keeps titles; no problem, and a strict one stays strict. Ollama
    /// keeps no title, so reports none. Pydantic v1 writes one for each field of a model type
    /// (its own title beside an `allOf` of the model's `$ref`).
    #[test]
    fn two_titles_in_an_allof_are_a_change() {
        use crate::providers::Provider;
        let branches = json!([{"type":"object","title":"X","properties":{"a":{"type":"string"}},"required":["a"]},{"title":"Y","properties":{"b":{"type":"string"}},"required":["b"]}]);
        let pydantic = json!({"type":"object","properties":{
            "p":{"title":"X","description":"who owns it","allOf":[{"$ref":"#/definitions/Person"}]}},
            "required":["p"],"definitions":{"Person":{"type":"object","title":"Y","properties":{"name":{"type":"string","title":"Name"}},"required":["name"]}}});
        for schema in [json!({"type":"object","properties":{"p":{"allOf":branches}},"required":["p"],"additionalProperties":false}), pydantic] {
            let tools = json!([{"name":"t","inputSchema":schema}]);
            for (provider, strict, rule) in [
                (Provider::Gemini, false, Some("gemini/allof")),
                (Provider::Vertex, false, Some("gemini/allof")),
                (Provider::OpenAi, true, Some("openai/strict-allof")),
                (Provider::Anthropic, true, Some("anthropic/strict-allof")),
                (Provider::Ollama, false, None),
            ] {
                let mut opts = crate::convert::ConvertOptions::default();
                opts.schema.strict = strict;
                let out = crate::convert::convert(tools.clone(), provider, &opts).unwrap();
                let report = &out.report.tools[0];
                let titles = |ds: &[crate::report::Diagnostic]| ds.iter().filter(|d| d.message.contains("disagree on `title`")).map(|d| (d.rule, d.path.clone())).collect::<Vec<_>>();
                assert_eq!(titles(&report.problems), [], "{provider:?}: {:?}", report.problems);
                match rule {
                    Some(rule) => assert_eq!(titles(&report.changes), [(rule, "/properties/p".owned())], "{provider:?}: {:?}", report.changes),
                    None => assert_eq!(titles(&report.changes), [], "{provider:?}: {:?}", report.changes),
                }
                if strict {
                    assert_eq!(report.strict, Some(true), "{provider:?}: {:?}", report.problems);
                }
                assert!(out.tools.to_string().contains(r#""title":"X""#) != (provider == Provider::Ollama), "{provider:?}: {}", out.tools);
                assert!(!out.tools.to_string().contains(r#""Y""#), "{provider:?}: {}", out.tools);
            }
        }
    }

    /// A root `allOf` merged into the root: the root's own `title` kept and a branch's other one
    /// reported as a change (it was dropped without a word), as in a nested merge; so is a
    /// second branch's title beside the first. No problem, and a strict root stays strict.
    /// Ollama keeps no title, so reports none.
    #[test]
    fn titles_in_a_root_allof_are_a_change() {
        use crate::providers::Provider;
        let own = json!({"type":"object","title":"X","allOf":[{"title":"Y","properties":{"a":{"type":"string"}},"required":["a"]}]});
        let branches = json!({"type":"object","allOf":[{"title":"X","properties":{"a":{"type":"string"}},"required":["a"]},{"title":"Y","properties":{"b":{"type":"string"}},"required":["b"]}]});
        let same = json!({"type":"object","title":"X","allOf":[{"title":"X","properties":{"a":{"type":"string"}},"required":["a"]}]});
        for (schema, lost) in [(own, true), (branches, true), (same, false)] {
            let tools = json!([{"name":"t","inputSchema":schema}]);
            for (provider, strict) in [
                (Provider::Gemini, false),
                (Provider::Vertex, false),
                (Provider::OpenAi, false),
                (Provider::OpenAi, true),
                (Provider::Anthropic, false),
                (Provider::Anthropic, true),
                (Provider::Bedrock, false),
                (Provider::Ollama, false),
            ] {
                let mut opts = crate::convert::ConvertOptions::default();
                opts.schema.strict = strict;
                let out = crate::convert::convert(tools.clone(), provider, &opts).unwrap();
                let report = &out.report.tools[0];
                let titles = |ds: &[crate::report::Diagnostic]| ds.iter().filter(|d| d.message.contains("disagree on `title`")).map(|d| (d.rule, d.path.clone())).collect::<Vec<_>>();
                assert_eq!(titles(&report.problems), [], "{provider:?}: {:?}", report.problems);
                let want = if lost && provider != Provider::Ollama { vec![("schema/root-combinator-conflict", "/allOf".owned())] } else { vec![] };
                assert_eq!(titles(&report.changes), want, "{provider:?} {schema}: {:?}", report.changes);
                if strict {
                    assert_eq!(report.strict, Some(true), "{provider:?}: {:?}", report.problems);
                }
                assert!(out.tools.to_string().contains(r#""title":"X""#) != (provider == Provider::Ollama), "{provider:?}: {}", out.tools);
                assert!(!out.tools.to_string().contains(r#""Y""#), "{provider:?}: {}", out.tools);
            }
        }
    }

    /// A union branch whose `type` names no JSON Schema type: the name is removed (and said so),
    /// and the branch is then of the node's type, as an untyped one is, not of any type.
    #[test]
    fn a_branch_of_an_unknown_type_takes_the_nodes_type() {
        for t in [json!("foo"), json!(["foo"]), json!(["foo", "String"])] {
            let (s, _, cx) = run(json!({"type":"object","properties":{"p":{"type":"string","anyOf":[{"type":t,"minLength":2},{"type":"string","maxLength":1}]}}}));
            assert_eq!(s["properties"]["p"], json!({"anyOf":[{"type":"string","minLength":2},{"type":"string","maxLength":1}]}), "{t}");
            let said: Vec<&str> = cx.changes.iter().filter(|d| d.path == "/properties/p/anyOf/0").map(|d| d.rule).collect();
            assert_eq!(said, [if t.is_string() { "schema/unknown-type" } else { "schema/type-case" }], "{t}: {:?}", cx.changes);
        }
    }

    #[test]
    fn additional_properties_is_stripped_everywhere() {
        // https://github.com/nanbingxyz/5ire/issues/42 (filesystem edit_file)
        let (s, _, _) = run(json!({"type":"object","additionalProperties":false,"properties":{"edits":{"type":"array","items":{"type":"object","additionalProperties":false,"properties":{"oldText":{"type":"string"}},"required":["oldText"]}}},"required":["edits"],"$schema":"http://json-schema.org/draft-07/schema#"}));
        assert_eq!(s, json!({"type":"object","properties":{"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string"}},"required":["oldText"]}}},"required":["edits"]}));
    }

    #[test]
    fn type_arrays_become_nullable() {
        // https://github.com/n8n-io/n8n/issues/15553
        assert_eq!(prop(json!({"type":["string","null"]})), json!({"type":"string","nullable":true}));
        // https://github.com/agno-agi/agno/issues/3298
        assert_eq!(prop(json!({"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"title":"T"})), json!({"type":"string","default":null,"title":"T","nullable":true}));
    }

    /// A `null` in an enum beside a type that leaves null out allows no null either: removed
    /// from the enum, the node not made nullable; `nullable: true` or a `null` type keep it.
    #[test]
    fn a_null_the_type_leaves_out_is_not_nullable() {
        for (input, expected) in [
            (json!({"type":"string","enum":["x",null]}), json!({"type":"string","enum":["x"]})),
            (json!({"type":"integer","enum":[1,null]}), json!({"type":"string","enum":["1"]})),
            (json!({"anyOf":[{"type":"string"}],"enum":["x",null]}), json!({"type":"string","enum":["x"]})),
            // Null allowed: nullable, as before.
            (json!({"type":"string","nullable":true,"enum":["x",null]}), json!({"type":"string","enum":["x"],"nullable":true})),
            (json!({"anyOf":[{"type":"string"},{"type":"null"}],"enum":["x",null]}), json!({"type":"string","enum":["x"],"nullable":true})),
            (json!({"enum":["x",null]}), json!({"type":"string","enum":["x"],"nullable":true})),
        ] {
            let (s, _, cx) = run(json!({"type":"object","properties":{"p":input.clone()}}));
            assert_eq!(s["properties"]["p"], expected, "{input}");
            let said: Vec<&str> = cx.changes.iter().filter(|d| d.path == "/properties/p" && d.message.contains("`null` in enum")).map(|d| d.rule).collect();
            let nullable = expected.get("nullable").is_some();
            assert_eq!(said, [if nullable { "gemini/nullable" } else { "gemini/enum-type" }], "{input}: {:?}", cx.changes);
            assert!(cx.problems.is_empty(), "{:?}", cx.problems);
        }
        // No other value left: no value is valid, the property goes.
        let (s, _, _) = run(json!({"type":"object","properties":{"p":{"type":"string","enum":[1,null]},"q":{"type":"string"}}}));
        assert_eq!(s["properties"], json!({"q":{"type":"string"}}), "{s}");
        // Several types: no branch, nor the union, is nullable, and the null is reported.
        let (s, _, cx) = run(json!({"type":"object","properties":{"p":{"type":["string","integer"],"enum":["x",1,null]}}}));
        assert!(!s.to_string().contains("nullable"), "{s}");
        assert!(cx.changes.iter().any(|d| d.rule == "gemini/type-array" && d.message.ends_with(": null")), "{:?}", cx.changes);
    }

    /// A `null` type or branch beside an enum (or const) without null allows no null: the node
    /// is not made nullable, which would let the model send a null the tool refuses (s29f F3).
    #[test]
    fn a_null_the_enum_leaves_out_is_not_nullable() {
        for (input, expected) in [
            (json!({"type":["string","null"],"enum":["x","y"]}), json!({"type":"string","enum":["x","y"]})),
            (json!({"type":["string","null"],"const":"x"}), json!({"type":"string","enum":["x"]})),
            (json!({"anyOf":[{"type":"string"},{"type":"null"}],"enum":["x"]}), json!({"type":"string","enum":["x"]})),
            // Null listed: nullable, as before.
            (json!({"type":["string","null"],"enum":["x",null]}), json!({"type":"string","enum":["x"],"nullable":true})),
        ] {
            let (s, _, cx) = run(json!({"type":"object","properties":{"p":input.clone()}}));
            assert_eq!(s["properties"]["p"], expected, "{input}");
            let said: Vec<&str> = cx.changes.iter().filter(|d| d.path == "/properties/p").map(|d| d.rule).collect();
            let nullable = expected.get("nullable").is_some();
            assert_eq!(said.contains(&"gemini/enum-type"), !nullable, "{input}: {said:?}");
            assert!(cx.problems.is_empty(), "{:?}", cx.problems);
        }
        // Several types: the branches, and the union, are not nullable either.
        let (s, _, _) = run(json!({"type":"object","properties":{"p":{"type":["string","integer","null"],"enum":["x",1]}}}));
        assert!(!s.to_string().contains("nullable"), "{s}");
    }

    #[test]
    fn several_types_become_any_of() {
        // https://github.com/Skyvern-AI/skyvern/issues/8611: synthesized array branch needs items
        let p = prop(json!({"type":["object","array","string"],"description":"d"}));
        assert_eq!(p["description"], "d");
        let b = p["anyOf"].as_array().unwrap();
        assert_eq!(b.len(), 3);
        assert_eq!(b[1]["type"], "array");
        assert!(b[1].get("items").is_some());
        assert!(p.get("type").is_none());
    }

    #[test]
    fn an_enum_of_argument_objects_is_removed_and_the_properties_kept() {
        for key in ["enum", "const"] {
            let value = if key == "enum" { json!([{"a": "x"}]) } else { json!({"a": "x"}) };
            let mut schema = json!({"type":"object","properties":{"a":{"type":"string"}}});
            schema[key] = value;
            let (s, _, cx) = run(schema);
            assert_eq!(s, json!({"type":"object","properties":{"a":{"type":"string"}}}), "{key}");
            assert!(cx.problems.iter().any(|d| d.rule == "gemini/root-enum"), "{key}: {:?}", cx.problems);
        }
    }

    #[test]
    fn what_is_no_schema_is_any_value_and_reported() {
        let (s, _, cx) = run(json!({"type":"object","properties":{"type":"object","name":{"type":"string"}}}));
        assert!(s["properties"]["type"]["anyOf"].is_array());
        let d = cx.changes.iter().find(|d| d.rule == "schema/bad-property-schema").expect("reported");
        assert_eq!((d.path.as_str(), d.message.as_str()), ("/properties/type", "schema was string; replaced by any value"));
    }

    #[test]
    fn const_becomes_enum_and_enums_become_strings() {
        // https://github.com/zed-industries/zed/issues/45552
        assert_eq!(prop(json!({"const":"a"})), json!({"type":"string","enum":["a"]}));
        // Beside an enum, both hold: the const's value (never the enum's other values).
        assert_eq!(prop(json!({"const":"a","enum":["a","b"]})), json!({"type":"string","enum":["a"]}));
        let (s, _, cx) = run(json!({"type":"object","properties":{"p":{"const":"c","enum":["a","b"]}}}));
        assert_eq!(s["properties"]["p"]["enum"], json!(["c"]));
        assert!(cx.problems.iter().any(|d| d.rule == "gemini/const" && d.message.contains("no value can match")), "{:?}", cx.problems);
        for schema in [json!({"const":"a","enum":["a","b"]}), json!({"const":1,"enum":[1,2],"type":"integer"}), json!({"const":"c","enum":["a"]})] {
            let tools = json!([{"name": "t", "inputSchema": {"type": "object", "properties": {"p": schema}}}]);
            for provider in [crate::providers::Provider::Gemini, crate::providers::Provider::Vertex] {
                let fast = crate::convert::convert_json(&tools.to_string(), provider, &crate::convert::ConvertOptions::default()).unwrap();
                let general = crate::convert::convert(tools.clone(), provider, &crate::convert::ConvertOptions::default()).unwrap();
                assert_eq!(fast, general.tools.to_string());
            }
        }
        // https://github.com/rikkahub/rikkahub/issues/477
        let (s, plan, _) = run(json!({"type":"object","properties":{"base":{"type":"integer","enum":[2,8,10,16]}}}));
        assert_eq!(s["properties"]["base"], json!({"type":"string","enum":["2","8","10","16"]}));
        assert_eq!(plan.apply(json!({"base":"16"})), json!({"base":16}));
        // https://github.com/anomalyco/opencode/issues/2687
        assert_eq!(prop(json!({"enum":[true,false]})), json!({"type":"string","enum":["true","false"]}));
        // 1 and "1" are one string: written once, and reported (the model cannot choose "1").
        let (s, plan, cx) = run(json!({"type":"object","properties":{"v":{"enum":[1,"1",2]}}}));
        assert_eq!(s["properties"]["v"]["enum"], json!(["1", "2"]));
        assert_eq!(plan.apply(json!({"v":"1"})), json!({"v":1}));
        let p = cx.problems.iter().find(|d| d.rule == "gemini/enum-collision").expect("reported");
        assert_eq!((p.path.as_str(), p.message.as_str()), ("/properties/v", r#"enum values 1 and "1" are the same string for Gemini, "1": the model cannot choose "1", and "1" is sent as 1"#));
        // `null` in an enum of strings makes the node nullable; the strings need no mapping back.
        let (s, plan, cx) = run(json!({"type":"object","properties":{"by":{"type":["string","null"],"enum":["id",null]}}}));
        assert_eq!(s["properties"]["by"], json!({"type":"string","enum":["id"],"nullable":true}));
        assert!(plan.is_empty(), "{plan:?}");
        assert!(cx.changes.iter().any(|d| d.message.contains("`null` in enum")));
        assert!(!cx.changes.iter().any(|d| d.rule == "gemini/enum-strings"));
        let (_, plan, _) = run(json!({"type":"object","properties":{"n":{"enum":[1,null]}}}));
        assert_eq!(plan.apply(json!({"n":"1"})), json!({"n":1}));
    }

    #[test]
    fn items_always_present_with_a_type() {
        // https://github.com/router-for-me/CLIProxyAPI/issues/5292, https://github.com/boshyxd/robloxstudio-mcp/issues/72
        let p = prop(json!({"type":"array","items":{"type":"array"}}));
        assert!(p["items"]["items"]["anyOf"].is_array());
        assert_eq!(prop(json!({"type":"array","items":{}}))["items"], any_value(false));
    }

    #[test]
    fn formats_outside_the_subset_go_to_the_description() {
        // https://github.com/google-gemini/gemini-cli/issues/2237
        let p = prop(json!({"type":"string","format":"uri","description":"The URL"}));
        assert_eq!(p, json!({"type":"string","description":"The URL (format: uri)"}));
        assert_eq!(prop(json!({"type":"string","format":"date-time"}))["format"], "date-time");
    }

    #[test]
    fn required_filtered_and_properties_only_on_objects() {
        // https://github.com/google-gemini/gemini-cli/issues/1458, https://github.com/anomalyco/opencode/issues/11889
        let (s, _, _) = run(json!({"type":"object","properties":{"a":{"type":"string","properties":{"x":{}},"required":["x"]}},"required":["a","model"]}));
        // `model`, required but undeclared, is declared as any value (the server requires it,
        // and Gemini fills declared properties only); one the object refuses is removed.
        assert_eq!(s["properties"]["a"], json!({"type":"string"}));
        assert_eq!(s["properties"]["model"], any_value(false));
        assert_eq!(s["required"], json!(["a", "model"]));
        let (s, _, _) = run(json!({"type":"object","properties":{"a":{"type":"string"}},"required":["a","model"],"additionalProperties":false}));
        assert_eq!(s, json!({"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}));
        // Below the root too, with or without `properties`.
        let (s, _, cx) = run(json!({"type":"object","properties":{"o":{"type":"object","required":["k"]},"p":{"type":"object","properties":{},"required":["k"],"additionalProperties":{"type":"integer"}}}}));
        assert_eq!(s["properties"]["o"]["properties"]["k"], any_value(false));
        assert_eq!(s["properties"]["o"]["required"], json!(["k"]));
        assert_eq!(s["properties"]["p"]["properties"]["k"], json!({"type":"integer"}));
        assert!(cx.changes.iter().any(|d| d.rule == "schema/required-undeclared" && d.path == "/properties/o/required"), "{:?}", cx.changes);
    }

    #[test]
    fn refs_are_inlined_and_recursion_cut() {
        // https://github.com/vercel/ai/pull/19141, https://github.com/danny-avila/LibreChat/issues/14160
        let (s, _, _) = run(json!({"type":"object","$defs":{"N":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/N"}}}}},"properties":{"tree":{"$ref":"#/$defs/N"},"copy":{"$ref":"#/properties/tree"}}}));
        let text = s.to_string();
        assert!(!text.contains("$ref") && !text.contains("$defs"));
        assert_eq!(s["properties"]["tree"]["properties"]["kids"]["items"]["type"], "object");
    }

    #[test]
    fn boolean_subschemas_keep_their_meaning() {
        // https://github.com/github/copilot-cli/issues/4623
        let (s, _, cx) = run(json!({"type":"object","properties":{"any":true,"never":false,"untyped":{"description":"anything"}}}));
        assert_eq!(s["properties"]["any"], any_value(false));
        // Any value: a list too (of any of the others), which Gemini then lets the model send.
        let branches: Vec<&str> = s["properties"]["any"]["anyOf"].as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap()).collect();
        assert_eq!(branches, ["string", "number", "boolean", "object", "array"]);
        assert_eq!(s["properties"]["any"]["anyOf"][4]["items"]["anyOf"].as_array().unwrap().len(), 4);
        let untyped: Vec<&str> = s["properties"]["untyped"]["anyOf"].as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap()).collect();
        assert_eq!(untyped, ["string", "number", "boolean", "object", "array"], "{}", s["properties"]["untyped"]);
        assert!(s["properties"].get("never").is_none());
        assert!(cx.changes.iter().any(|d| d.rule == "gemini/false-property"));
    }

    #[test]
    fn property_named_like_a_keyword_is_a_property() {
        let (s, _, _) = run(json!({"type":"object","properties":{"type":{"type":"string"},"format":{"type":"string"},"$ref":{"type":"string"},"if":{"type":"number"},"properties":{"type":"object","properties":{"a":{"type":"string"}}}},"required":["type","if"]}));
        let props = s["properties"].as_object().unwrap();
        assert_eq!(props.keys().collect::<Vec<_>>(), ["type", "format", "$ref", "if", "properties"]);
        assert_eq!(s["required"], json!(["type", "if"]));
        assert_eq!(s["properties"]["properties"]["properties"]["a"]["type"], "string");
    }

    #[test]
    fn empty_root_omits_parameters() {
        // https://github.com/CherryHQ/cherry-studio/issues/3270
        let (c, cx) = run_mode(json!({"type":"object","properties":{}}), false, GeminiMode::Parameters);
        assert!(c.schema.is_none());
        assert!(cx.problems.is_empty());
        // Arguments as an open map: omitted too (nothing else is accepted), but as a problem,
        // since the model can then pass none; parametersJsonSchema keeps the map.
        for open in [json!({"type":"object","additionalProperties":{"type":"string"}}), json!({"type":"object","patternProperties":{"^x":{}}})] {
            let (c, cx) = run_mode(open.clone(), false, GeminiMode::Parameters);
            assert!(c.schema.is_none(), "{open}");
            assert!(cx.problems.iter().any(|d| d.rule == "gemini/open-root"), "{open}: {:?}", cx.problems);
            // Nothing is said to be described: the description went with `parameters`.
            assert!(cx.changes.iter().all(|d| !d.message.contains("described")), "{open}: {:?}", cx.changes);
            let (c, cx) = run_mode(open.clone(), false, GeminiMode::JsonSchema);
            assert!(c.schema.is_some_and(|s| s.get("additionalProperties").is_some() || s.get("patternProperties").is_some()), "{open}");
            assert!(cx.problems.is_empty());
        }
    }

    #[test]
    fn vertex_any_of_stands_alone() {
        // https://github.com/BerriAI/litellm/issues/11164
        let (c, cx) = run_mode(
            json!({"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"type":"integer"}],"description":"d","default":"a"}}}),
            true,
            GeminiMode::Parameters,
        );
        let x = &c.schema.unwrap()["properties"]["x"];
        assert_eq!(x.as_object().unwrap().len(), 1);
        assert_eq!(x["anyOf"][0]["description"], "d");
        // What does not move into the branches is said to be removed.
        assert!(cx.changes.iter().any(|d| d.rule == "vertex/anyof-alone" && d.message.contains("`default` removed")), "{:?}", cx.changes);
    }

    #[test]
    fn json_schema_mode_keeps_json_schema() {
        // https://github.com/anomalyco/opencode/issues/12295: $ref with siblings rejected
        let (c, _) = run_mode(
            json!({"type":"object","$defs":{"Q":{"type":"string"}},"properties":{"q":{"$ref":"#/$defs/Q","description":"d"},"n":{"type":["string","null"]}},"additionalProperties":false}),
            false,
            GeminiMode::JsonSchema,
        );
        let s = c.schema.unwrap();
        assert_eq!(s["properties"]["q"], json!({"type":"string","description":"d"}));
        assert_eq!(s["properties"]["n"]["type"], json!(["string", "null"]));
        assert_eq!(s["additionalProperties"], false);
    }

    #[test]
    fn dropped_constraints_are_described() {
        let p = prop(json!({"type":"integer","exclusiveMinimum":0,"multipleOf":5,"description":"Count"}));
        assert_eq!(p, json!({"type":"integer","description":"Count (must be > 0; multiple of 5)"}));
    }

    /// Gemini's counts are int64: past `i64::MAX` a maximum limits nothing an int64 says
    /// (removed), a minimum leaves no value (the largest int64 sent, reported as such), whether
    /// the count came as an integer or as a double; `i64::MAX` itself is kept.
    #[test]
    fn counts_past_int64_are_removed_or_clamped() {
        for (max, min) in [(json!(12345678901234567890u64), json!(18446744073709551615u64)), (json!(1.8446744073709552e19), json!(1.2345678901234567e19))] {
            let (mut s, _, cx) = run(json!({"type":"object","properties":{
                "s":{"type":"string","maxLength":max,"minLength":1},
                "t":{"type":"array","items":{"type":"string"},"minItems":min.clone(),"maxItems":max},
                "o":{"type":"object","properties":{"a":{"type":"string"}},"minProperties":min}}}));
            to_wire(&mut s);
            assert_eq!(s["properties"]["s"], json!({"type":"STRING","minLength":"1"}));
            assert_eq!(s["properties"]["t"], json!({"type":"ARRAY","items":{"type":"STRING"},"minItems":"9223372036854775807"}));
            assert_eq!(s["properties"]["o"]["minProperties"], json!("9223372036854775807"));
            let removed: Vec<&str> = cx.changes.iter().filter(|d| d.rule == "schema/bad-keyword-value").map(|d| d.path.as_str()).collect();
            assert_eq!(removed, ["/properties/s/maxLength", "/properties/t/maxItems"], "{:?}", cx.changes);
            let none: Vec<&str> = cx.problems.iter().filter(|d| d.rule == "schema/disjoint-values").map(|d| d.path.as_str()).collect();
            assert_eq!(none, ["/properties/t/minItems", "/properties/o/minProperties"], "{:?}", cx.problems);
        }
        let (mut s, _, cx) = run(json!({"type":"object","properties":{"s":{"type":"string","maxLength":9223372036854775807u64,"minLength":9223372036854775807u64}}}));
        to_wire(&mut s);
        assert_eq!(s["properties"]["s"], json!({"type":"STRING","maxLength":"9223372036854775807","minLength":"9223372036854775807"}));
        assert!(cx.changes.is_empty() && cx.problems.is_empty(), "{:?} {:?}", cx.changes, cx.problems);
    }

    /// A `type` beside an anyOf/oneOf narrows each branch to the types it shares with it (a
    /// value must have both): branches of none of them removed, `integer` kept of a `number`,
    /// the node's `null` only where a branch takes it, nested unions in turn; reported.
    #[test]
    fn a_type_beside_a_union_narrows_its_branches() {
        let narrowed = |schema: Value, want: Value| {
            let (s, _, cx) = run(json!({"type":"object","properties":{"p":schema.clone()},"required":["p"]}));
            assert_eq!(s["properties"]["p"], want, "{schema}");
            assert!(cx.changes.iter().any(|d| d.rule == "gemini/anyof-keyword" && d.message.starts_with("`type` [")), "{schema}: {:?}", cx.changes);
        };
        narrowed(
            json!({"type":["string","integer"],"anyOf":[{"type":"string","minLength":2},{"type":"integer","maximum":5},{"type":"boolean"}]}),
            json!({"anyOf":[{"type":"string","minLength":2},{"type":"integer","maximum":5}]}),
        );
        narrowed(json!({"type":"string","anyOf":[{"type":"string","minLength":2},{"type":"integer"}]}), json!({"type":"string","minLength":2}));
        narrowed(json!({"type":"integer","oneOf":[{"type":"number","maximum":2.5},{"type":"boolean"}]}), json!({"type":"integer","maximum":2.5}));
        narrowed(json!({"type":"number","anyOf":[{"type":"integer","minimum":1},{"type":"string"}]}), json!({"type":"integer","minimum":1}));
        narrowed(json!({"type":["string","null"],"anyOf":[{"type":"string"},{"type":"integer"}]}), json!({"type":"string"}));
        narrowed(json!({"type":"string","anyOf":[{"type":"null"},{"type":["string","null"],"minLength":1},{"type":"boolean"}]}), json!({"type":"string","minLength":1}));
        narrowed(
            json!({"type":["string","null"],"anyOf":[{"type":"null"},{"type":"string","minLength":1},{"type":"boolean"}]}),
            json!({"type":"string","minLength":1,"nullable":true}),
        );
        // A nested union narrowed in turn; `true` takes the node's type.
        narrowed(
            json!({"type":"string","anyOf":[{"anyOf":[{"type":"integer"},{"type":"string","maxLength":3}]},{"type":"boolean"},true]}),
            json!({"anyOf":[{"type":"string","maxLength":3},{"type":"string"}]}),
        );
        // An object's union: its properties go into the branches that are objects only.
        narrowed(
            json!({"type":"object","properties":{"a":{"type":"string"}},"anyOf":[{"required":["a"]},{"type":"string"}]}),
            json!({"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}),
        );
        // A null the node refuses is no branch's either (by `nullable`, `enum` or `const`); a
        // branch's type in another case is narrowed as it is read.
        narrowed(
            json!({"type":"string","anyOf":[{"type":"string","nullable":true,"minLength":2},{"type":"string","maxLength":1}]}),
            json!({"anyOf":[{"type":"string","minLength":2},{"type":"string","maxLength":1}]}),
        );
        narrowed(
            json!({"type":"string","anyOf":[{"enum":["a",null]},{"type":"string","minLength":3}]}),
            json!({"anyOf":[{"type":"string","enum":["a"]},{"type":"string","minLength":3}]}),
        );
        narrowed(json!({"type":"string","anyOf":[{"const":null},{"type":"string","minLength":3}]}), json!({"type":"string","minLength":3}));
        narrowed(json!({"type":"string","anyOf":[{"enum":[null]},{"nullable":true,"minLength":3}]}), json!({"type":"string","minLength":3}));
        narrowed(json!({"type":"string","anyOf":[{"type":"string","minLength":2},{"type":"Integer"}]}), json!({"type":"string","minLength":2}));
        narrowed(json!({"type":"integer","anyOf":[{"type":"Number","maximum":2.5},{"type":"String"}]}), json!({"type":"integer","maximum":2.5}));
        // A null the node allows, which a branch takes by its `nullable` or `enum`: kept.
        for (p, want) in [
            (
                json!({"type":["string","null"],"anyOf":[{"type":"string","nullable":true,"minLength":2},{"type":"string","maxLength":1}]}),
                json!({"anyOf":[{"type":"string","minLength":2,"nullable":true},{"type":"string","maxLength":1}],"nullable":true}),
            ),
            (
                json!({"type":"string","nullable":true,"anyOf":[{"enum":["a",null]},{"type":"string","maxLength":1}]}),
                json!({"anyOf":[{"type":"string","enum":["a"],"nullable":true},{"type":"string","maxLength":1}],"nullable":true}),
            ),
        ] {
            let (s, _, cx) = run(json!({"type":"object","properties":{"p":p.clone()}}));
            assert_eq!(s["properties"]["p"], want, "{p}");
            assert!(!cx.changes.iter().any(|d| d.rule == "gemini/anyof-keyword"), "{p}: {:?}", cx.changes);
        }
        // A null branch beside a nested union takes the null the union's branches refuse.
        for p in [
            json!({"type":["integer","null"],"anyOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"type":"null"}]}),
            json!({"type":"integer","nullable":true,"anyOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"type":"null"}]}),
            json!({"type":["integer","null"],"oneOf":[{"oneOf":[{"type":"integer"},{"type":"string"}]},{"type":"null"}]}),
            json!({"anyOf":[{"type":"integer","anyOf":[{"type":"integer"},{"type":"string"}]},{"type":"null"}]}),
        ] {
            narrowed(p, json!({"type":"integer","nullable":true}));
        }
        // Without one, a null no branch takes is removed.
        narrowed(json!({"type":["integer","null"],"anyOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"type":"boolean"}]}), json!({"type":"integer"}));
        // A typed branch's enum listing null does not take it where the branch's type does not.
        let (s, _, _) = run(json!({"type":"object","properties":{"p":{"type":"string","nullable":true,"anyOf":[{"type":"string","enum":["a",null]},{"type":"string","maxLength":1}]}}}));
        assert_eq!(s["properties"]["p"], json!({"anyOf":[{"type":"string","enum":["a"]},{"type":"string","maxLength":1}]}), "{s}");
        // No branch of the node's types: no value, the property removed.
        let (s, _, cx) = run(json!({"type":"object","properties":{"p":{"type":"string","anyOf":[{"type":"integer"},{"type":"boolean"}]}}}));
        assert_eq!(s.get("properties"), None, "{s}");
        assert!(cx.problems.iter().any(|d| d.rule == "gemini/no-valid-branch"), "{:?}", cx.problems);
        // Branches within the node's types: unchanged, nothing reported.
        let (s, _, cx) = run(json!({"type":"object","properties":{"p":{"type":["string","null"],"anyOf":[{"type":"string","minLength":2},{"maxLength":1}]}}}));
        assert_eq!(s["properties"]["p"], json!({"anyOf":[{"type":"string","minLength":2},{"type":"string","maxLength":1}],"nullable":true}));
        assert!(!cx.changes.iter().any(|d| d.rule == "gemini/anyof-keyword"), "{:?}", cx.changes);
    }

    /// A keyword beside an anyOf goes into a branch that is a union itself as into a type list
    /// (its branches of the types it applies to), not described as for a branch of no type.
    #[test]
    fn keywords_beside_an_anyof_reach_a_nested_unions_branches() {
        let as_list = prop(json!({"anyOf":[{"type":["integer","null"]},{"type":"string","maxLength":3}],"maximum":4}));
        assert_eq!(as_list, json!({"anyOf":[{"type":"integer","maximum":4,"nullable":true},{"type":"string","maxLength":3}]}));
        let (s, _, cx) = run(json!({"type":"object","properties":{"p":{"anyOf":[{"anyOf":[{"type":"integer"},{"type":"null"}]},{"type":"string","maxLength":3}],"maximum":4}}}));
        assert_eq!(s["properties"]["p"], as_list);
        let moved: Vec<&str> = cx.changes.iter().filter(|d| d.rule == "gemini/anyof-keyword").map(|d| d.message.as_str()).collect();
        assert_eq!(moved, ["`maximum` beside anyOf moved into the branches it applies to (0): a Gemini node has either type or anyOf"], "{:?}", cx.changes);
        // A note the nested union has for its untyped branches reaches them, though they have a
        // description of their own (and its own description, each of its alternatives).
        let p = prop(json!({"anyOf":[{"anyOf":[{"type":"integer"},{"description":"any"}]},{"type":"string"}],"maximum":4}));
        let branches = p["anyOf"].as_array().unwrap();
        assert_eq!(branches[0], json!({"type":"integer","maximum":4,"description":"(maximum: 4)"}), "{p}");
        for b in &branches[1..6] {
            assert_eq!(b["description"], json!("(maximum: 4) (any)"), "{p}");
        }
        assert_eq!(branches[6], json!({"type":"string"}), "{p}");
        let p = prop(json!({"anyOf":[{"description":"Nested","anyOf":[{"type":"integer","description":"by id"},{"type":"boolean"}]},{"type":"string"}]}));
        assert_eq!(p, json!({"anyOf":[{"type":"integer","description":"Nested (by id)"},{"type":"boolean","description":"Nested"},{"type":"string"}]}));
        // Two levels down, an enum as the values of each branch's types, a bound only where it applies.
        let p = prop(json!({"anyOf":[{"oneOf":[{"anyOf":[{"type":"number"},{"type":"boolean"}]},{"type":"string"}]},{"type":"array","items":{"type":"string"}}],"minimum":1,"maxLength":5}));
        assert_eq!(
            p,
            json!({"anyOf":[{"type":"number","minimum":1},{"type":"boolean"},{"type":"string","maxLength":5},{"type":"array","items":{"type":"string"}}]})
        );
    }
}
