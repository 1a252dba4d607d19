//! JSON Schema processing shared by every provider.
//!
//! * [`process_json_schema`]: the root normalisation every provider starts from.
//! * [`walk`]: a structural walker that knows which keywords hold subschemas, so a property
//!   *named* `type`, `format` or `$ref` is never mistaken for a keyword.
//! * [`refs`]: local `$ref` inlining with bounded unrolling of recursion.
//! * [`domain`]: whether a node allows any value (its type, bounds, `enum`/`const`).
//! * [`evaluated`]: which items of an array a schema's keywords evaluate (for `unevaluatedItems`).
//! * [`lower`]: rewrites shared by several providers (root combinators, `items`, `required`).
//! * [`Cx`]: the conversion context: current path, limits, node budget and the change log.

pub(crate) mod domain;
pub mod evaluated;
pub mod lower;
pub mod refs;
pub(crate) mod siblings;
pub mod validate;
pub mod walk;

use serde_json::{Map, Value};

use crate::error::{Error, ErrorCode, Result};
use crate::model::{json_type, object, string, JsonObject, Keyed as _, NameSet, Put as _, Take as _};
use crate::report::Diagnostic;
use crate::text::Owned as _;

/// Limits that bound the work done on one schema. All configurable from JS via `options.limits`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Deepest schema nesting accepted (counting subschema levels, not JSON levels; a chain of
    /// `$ref` aliases is one level, see [`refs`]), up to [`Limits::DEPTH_CEILING`] (see
    /// [`Limits::depth_limit`]).
    pub max_depth: usize,
    /// Most schema nodes processed per tool, after `$ref` inlining.
    pub max_nodes: usize,
    /// How many times one `$ref` target may be unrolled inside itself before it is cut (the
    /// references of one recursion counted together on a path, see [`refs`]).
    pub max_ref_unroll: usize,
    /// Most tools per conversion.
    pub max_tools: usize,
    /// Longest string (a description, an enum value, a key) accepted, in bytes.
    pub max_string_bytes: usize,
}

impl Limits {
    /// The most schema levels any conversion enters, whatever `max_depth` says. The walkers
    /// recurse once or more per level, and in wasm every frame is on the JS engine's own
    /// stack, shared with the caller's: about 2.3 KB per level measured in Node 20 before its
    /// first optimisation, so V8's default stack (984 KB) overflowed at 450 levels of an
    /// unrolled recursive `$ref`, while 128 levels need about 290 KB. An overflow there is
    /// not a Rust error but an engine exception that leaves the module's own stack pointer
    /// behind, so no later call would work. The JS options refuse a larger `maxDepth`.
    pub const DEPTH_CEILING: usize = 128;

    /// The depth limit in force: `max_depth`, at most [`Limits::DEPTH_CEILING`].
    pub fn depth_limit(&self) -> usize {
        self.max_depth.min(Self::DEPTH_CEILING)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_depth: 64, max_nodes: 100_000, max_ref_unroll: 2, max_tools: 10_000, max_string_bytes: 1 << 20 }
    }
}

/// Adds a diagnostic, unless the same words are already said at the same place (two steps
/// meeting one keyword, a node lowered again after a merge): among the last ones at that path.
#[inline(never)]
fn record(list: &mut Vec<Diagnostic>, path: &str, rule: &'static str, message: String) {
    if !list.iter().rev().take_while(|d| d.path == path).take(16).any(|d| d.rule == rule && d.message == message) {
        list.push(Diagnostic { path: path.to_owned(), rule, message });
    }
}

/// The conversion context for one tool: where we are, what we changed, what is wrong.
#[derive(Debug)]
pub struct Cx {
    /// Limits in force.
    pub limits: Limits,
    path: String,
    depth: usize,
    nodes: usize,
    /// Changes made so far.
    pub changes: Vec<Diagnostic>,
    /// Problems found so far.
    pub problems: Vec<Diagnostic>,
    /// Deepest level entered in the work [`Cx::measured`] is measuring.
    peak: usize,
    /// Whether the last error of [`Cx::enter`] was the depth limit (see [`Cx::is_depth_error`]).
    depth_error: bool,
    /// Whether `$ref` expansions may be shared (see [`refs::Shared`]): only for callers that
    /// need the schema alone, not a change log with a path for every copy.
    share_refs: bool,
    /// The shared expansions of the schema in progress.
    pub(crate) shared: Option<Box<refs::Shared>>,
}

impl Cx {
    /// A fresh context.
    pub fn new(limits: Limits) -> Self {
        Self {
            limits,
            path: String::new(),
            depth: 0,
            nodes: 0,
            changes: Vec::new(),
            problems: Vec::new(),
            peak: 0,
            depth_error: false,
            share_refs: false,
            shared: None,
        }
    }

    /// Lets a provider share `$ref` expansions between the places that use them (see
    /// [`refs::Shared`]). The schema comes out the same; the change log then records what
    /// happened inside a shared expansion once, not once per copy.
    pub fn share_refs(mut self, share: bool) -> Self {
        self.share_refs = share;
        self
    }

    /// Whether `$ref` expansions may be shared.
    pub(crate) fn shares_refs(&self) -> bool {
        self.share_refs
    }

    /// The current JSON pointer.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Records a change at the current path.
    pub fn change(&mut self, rule: &'static str, message: impl Into<String>) {
        record(&mut self.changes, &self.path, rule, message.into());
    }

    /// Records a problem at the current path.
    pub fn problem(&mut self, rule: &'static str, message: impl Into<String>) {
        record(&mut self.problems, &self.path, rule, message.into());
    }

    /// Runs `f` with `token` appended to the path (JSON-pointer escaped) and depth checked.
    pub fn at<T>(&mut self, token: &str, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let len = self.push_token(token);
        let out = f(self);
        self.path.truncate(len);
        out
    }

    /// Appends `/token` to the path, escaped; returns the path's length before. Apart from
    /// [`Cx::at`], which is generic over its closure: in one copy, not in each of its thirty.
    #[inline(never)]
    fn push_token(&mut self, token: &str) -> usize {
        let len = self.path.len();
        crate::text::push_pointer_token(&mut self.path, token);
        len
    }

    /// Enters one schema level: checks depth and the node budget. Pair with [`Cx::leave`].
    pub fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        self.nodes += 1;
        self.peak = self.peak.max(self.depth);
        if self.depth > self.limits.depth_limit() {
            self.depth -= 1;
            self.depth_error = true;
            return Err(self.too_deep());
        }
        if self.nodes > self.limits.max_nodes {
            self.depth -= 1;
            self.depth_error = false;
            return Err(self.too_many_nodes());
        }
        Ok(())
    }

    /// The error of a schema nested past the depth limit, at the current path. Apart from
    /// [`Cx::enter`], which every schema level calls, as [`Cx::too_many_nodes`] is.
    #[inline(never)]
    fn too_deep(&self) -> Error {
        Error::new(ErrorCode::LimitExceeded, format!("schema nesting exceeds the limit of {} levels", self.limits.depth_limit()))
            .with_path(self.path.clone())
    }

    /// The error of a schema past `max_nodes`, at the current path.
    #[inline(never)]
    fn too_many_nodes(&self) -> Error {
        Error::new(ErrorCode::LimitExceeded, format!("schema has more than {} nodes (after $ref inlining)", self.limits.max_nodes))
            .with_path(self.path.clone())
    }

    /// Counts one node that is no level of its own (a hop of a chain of `$ref` aliases, see
    /// [`refs`]): checks the node budget as [`Cx::enter`] does.
    pub(crate) fn count_node(&mut self) -> Result<()> {
        self.nodes += 1;
        if self.nodes > self.limits.max_nodes {
            self.depth_error = false;
            return Err(self.too_many_nodes());
        }
        Ok(())
    }

    /// A context for work on a subschema `depth` levels down, after `nodes` nodes were entered
    /// (by a lowering that hands a subschema over, see `fast::gemini`).
    pub(crate) fn resumed(limits: Limits, depth: usize, nodes: usize) -> Self {
        Self { depth, nodes, peak: depth, ..Cx::new(limits) }
    }

    /// The deepest level entered.
    pub(crate) fn peak(&self) -> usize {
        self.peak
    }

    /// Whether `err` is the depth limit [`Cx::enter`] met (and not another limit or error),
    /// for a caller that can do without the levels it tried to enter (a recursive `$ref`, see
    /// [`refs`]), which then clears the mark ([`Cx::clear_depth_error`]).
    pub(crate) fn is_depth_error(&self, err: &Error) -> bool {
        self.depth_error && err.code == ErrorCode::LimitExceeded
    }

    /// Forgets the depth limit's error, after a caller did without what met it.
    pub(crate) fn clear_depth_error(&mut self) {
        self.depth_error = false;
    }

    /// Sets the deepest level entered back to `peak` (from [`Cx::peak`]), after work whose
    /// result was dropped.
    pub(crate) fn restore_peak(&mut self, peak: usize) {
        self.peak = peak;
    }

    /// Leaves a schema level.
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Schema nodes entered so far in this pass.
    pub fn nodes(&self) -> usize {
        self.nodes
    }

    /// Resets per-pass counters (depth and node budget) between passes over the same schema.
    pub fn reset_budget(&mut self) {
        self.depth = 0;
        self.nodes = 0;
        self.peak = 0;
    }

    /// Runs `f` and measures its work: the nodes it entered and how many levels below the
    /// current one it reached.
    pub(crate) fn measured<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> (T, usize, usize) {
        let nodes = self.nodes;
        let outer_peak = std::mem::replace(&mut self.peak, self.depth);
        let out = f(self);
        let height = self.peak - self.depth;
        self.peak = self.peak.max(outer_peak);
        (out, self.nodes - nodes, height)
    }

    /// Whether `nodes` more nodes reaching `height` levels below the current one stay within
    /// the limits (what [`Cx::enter`] would check for each of them).
    pub(crate) fn fits(&self, nodes: usize, height: usize) -> bool {
        self.nodes + nodes <= self.limits.max_nodes && self.depth + height <= self.limits.depth_limit()
    }

    /// Counts work done once and reused here: `nodes` nodes reaching `height` levels down.
    pub(crate) fn reuse(&mut self, nodes: usize, height: usize) {
        self.nodes += nodes;
        self.peak = self.peak.max(self.depth + height);
    }
}

/// The empty object schema: `{type:"object", properties:{}, required:[]}`.
pub fn empty_object_schema() -> Value {
    object([("type", string("object")), ("properties", Value::Object(Map::new())), ("required", Value::Array(Vec::new()))])
}

/// Keywords that make a schema without `type` object-like.
const OBJECT_KEYWORDS: &[&str] =
    &["properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties", "propertyNames"];

/// The property name used when a non-object root schema is wrapped (see [`process_json_schema`]).
pub const WRAPPED_PROPERTY: &str = "input";

/// How the root was normalised: needed to map arguments back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootShape {
    /// The root was (or became) an object schema; arguments pass through.
    Object,
    /// A non-object root was wrapped as `{input: <schema>}`; arguments are unwrapped on the way back.
    Wrapped,
}

/// The root normalisation every provider starts from (`processJsonSchema` in JS).
///
/// Rules, in order:
/// 1. A missing, `null` or non-object schema (a string, a number, an array, `true`) becomes
///    `{type:"object", properties:{}, required:[]}`; anything but a missing/null schema is reported.
///    `false` (no arguments are valid) becomes the same empty object, reported as a problem.
/// 2. A schema without `type` that has object keywords (`properties`, `required`,
///    `additionalProperties`...) gets `type:"object"`.
/// 3. A type array containing `"object"` at the root (`["object","null"]`) becomes `"object"`.
///    A root `$ref` is read as its target with the keywords beside it; a root that says it is
///    an object (`type: "object"`) beside a reference to a schema of another type stays an
///    object, the reference dropped and reported (`schema/root-ref-type`).
/// 4. A root `anyOf`/`oneOf`/`allOf` whose branches are all object schemas stays for the
///    provider to lower (see [`lower::merge_root_combinators`]) and gets `type:"object"`.
/// 5. Anything else (a root `type:"string"`, `"array"`, a combinator of non-objects) is
///    **wrapped**: `{type:"object", properties:{input: <schema>}, required:["input"]}`. The
///    model then calls with `{input: ...}` and `prepareArguments` unwraps it.
/// 6. `properties` is made an object (a malformed one is replaced by `{}` and reported);
///    `required` is made an array of the unique strings that name a property: anything else
///    is removed and reported.
pub fn process_json_schema(schema: &Value, cx: &mut Cx) -> (Value, RootShape) {
    match schema {
        Value::Object(_) => process_json_schema_owned(schema.clone(), cx),
        // Scalars and arrays are replaced, never copied.
        other => process_scalar_root(other, cx),
    }
}

fn process_scalar_root(schema: &Value, cx: &mut Cx) -> (Value, RootShape) {
    match schema {
        Value::Bool(false) => {
            cx.problem(
                "schema/false-root",
                "the input schema is `false` (no arguments are valid); replaced by an empty object schema",
            );
        }
        Value::Null => {}
        other => cx.change(
            "schema/non-object-root",
            format!("the input schema is {} (not an object); replaced by an empty object schema", json_type(other)),
        ),
    }
    (empty_object_schema(), RootShape::Object)
}

/// [`process_json_schema`] on an owned schema: the object is moved, not copied.
pub fn process_json_schema_owned(schema: Value, cx: &mut Cx) -> (Value, RootShape) {
    let mut obj = match schema {
        Value::Object(o) => o,
        other => return process_scalar_root(&other, cx),
    };
    if declares_draft_3(&obj) {
        let mut root = Value::Object(std::mem::take(&mut obj));
        rewrite_draft3(&mut root, cx, 0).ok();
        if let Value::Object(o) = root {
            obj = o;
        }
    }
    if declares_draft_3_to_7(&obj) {
        // Moved into a `Value` to be searched, and back.
        let root = Value::Object(std::mem::take(&mut obj));
        let refs = crate::schema::walk::contains_ref(&root, 0) || crate::schema::walk::contains_keyword(&root, "dependencies", 0);
        if let Value::Object(o) = root {
            obj = o;
        }
        if refs {
            report_ref_siblings(&obj, cx, 0).ok();
        }
        let mut root = Value::Object(std::mem::take(&mut obj));
        remove_contains_bounds(&mut root, cx, 0).ok();
        if let Value::Object(o) = root {
            obj = o;
        }
    }
    {
        // References by `$id`, and within embedded resources, written as pointers from the root.
        let mut root = Value::Object(std::mem::take(&mut obj));
        crate::schema::refs::resolve_ids(&mut root, cx);
        if let Value::Object(o) = root {
            obj = o;
        }
    }
    resolve_root_ref(&mut obj, cx);
    normalize_type(&mut obj, cx);
    let shape = match root_kind(&obj) {
        RootKind::Object => {
            if obj.find("type").and_then(Value::as_str) != Some("object") {
                let had = obj.find("type").cloned();
                obj.put("type", string("object"));
                match had {
                    None => cx.change("schema/infer-object", "added type \"object\" to an object-like root schema"),
                    Some(t) => cx.change("schema/root-type", format!("root type {} narrowed to \"object\"", crate::text::to_string(&t))),
                }
            }
            RootShape::Object
        }
        RootKind::Wrap => {
            cx.change(
                "schema/wrap-root",
                format!(
                    "the root schema is not an object; wrapped as the required property \"{WRAPPED_PROPERTY}\" (arguments are unwrapped by prepareArguments)"
                ),
            );
            // Definitions stay at the root, where `#/$defs/...` references look for them.
            let mut defs: Vec<(String, Value)> =
                ROOT_DEFS.into_iter().filter_map(|k| obj.take(k).map(|v| (k.owned(), v))).collect();
            // A reference to the old root (`#`, `#/items`...) now means the wrapped property: the wrapper
            // is another schema (an array of `#` would become an array of `{input}` objects).
            rebase_root_refs(&mut obj, &ROOT_DEFS, 0);
            for (_, map) in &mut defs {
                if let Value::Object(m) = map {
                    m.values_mut().filter_map(Value::as_object_mut).for_each(|d| rebase_root_refs(d, &ROOT_DEFS, 1));
                }
            }
            let mut props = Map::new();
            props.insert(WRAPPED_PROPERTY.into(), Value::Object(obj));
            let mut wrapped = Map::new();
            wrapped.put("type", string("object"));
            wrapped.put("properties", Value::Object(props));
            wrapped.put("required", Value::Array(vec![string(WRAPPED_PROPERTY)]));
            wrapped.extend(defs);
            return (Value::Object(wrapped), RootShape::Wrapped);
        }
    };
    fix_properties_and_required(&mut obj, cx);
    (Value::Object(obj), shape)
}

/// The definitions a wrapped root keeps at the wrapper's root (see [`rebase_root_refs`]).
const ROOT_DEFS: [&str; 2] = ["$defs", "definitions"];

/// Points `$ref`s to the old root at where the wrapper put it (`#` -> `#/properties/input`), except
/// those into the definitions, which stay at the root. Subschemas only (an `enum` value is data).
fn rebase_root_refs(o: &mut JsonObject, kept: &[&str], depth: usize) {
    if depth > 512 {
        return;
    }
    if let Some(Value::String(r)) = o.find_mut("$ref") {
        if let Some(rest) = r.strip_prefix('#') {
            // The pointer as it reads (`#/%24defs/X` is `#/$defs/X`).
            let decoded = crate::schema::refs::percent_decode(rest, false);
            let into_defs = kept.iter().any(|d| decoded.strip_prefix('/').and_then(|p| p.strip_prefix(d)).is_some_and(|t| t.is_empty() || t.starts_with('/')));
            if !into_defs && (rest.is_empty() || rest.starts_with('/')) {
                *r = format!("#/properties/{WRAPPED_PROPERTY}{rest}");
            }
        }
    }
    for (key, sub) in o.iter_mut() {
        let subs: Box<dyn Iterator<Item = &mut Value>> = match (walk::slot(key, sub), sub) {
            (walk::Slot::Map, Value::Object(m)) => Box::new(m.values_mut()),
            (walk::Slot::Array, Value::Array(a)) => Box::new(a.iter_mut()),
            (walk::Slot::Single, s) => Box::new(std::iter::once(s)),
            _ => continue,
        };
        subs.filter_map(Value::as_object_mut).for_each(|s| rebase_root_refs(s, kept, depth + 1));
    }
}

/// Whether a root's `$schema` names draft 3 to 7 (whose `$ref` ignores its siblings).
pub(crate) fn declares_draft_3_to_7(root: &JsonObject) -> bool {
    root.find("$schema").and_then(Value::as_str).is_some_and(names_draft_3_to_7)
}

/// Whether a `$schema` URI names draft 4 to 7.
pub(crate) fn names_draft_4_to_7(uri: &str) -> bool {
    names_draft(uri, b'4'..=b'7')
}

/// Whether `uri` holds `draft-0N` for a digit N of `digits`. Not `str::contains`: its searcher
/// (1.8 KB of wasm) would be compiled on a conversion's first call, for a `$schema` most
/// schemas written by zod-to-json-schema have (see bench/README.md, "Cold start").
pub(crate) fn names_draft(uri: &str, digits: std::ops::RangeInclusive<u8>) -> bool {
    uri.as_bytes().windows(8).any(|w| w[..7] == *b"draft-0" && digits.contains(&w[7]))
}

/// Whether a `$schema` URI names draft 3 to 7: the drafts whose `$ref` ignores every keyword
/// beside it.
pub(crate) fn names_draft_3_to_7(uri: &str) -> bool {
    names_draft(uri, b'3'..=b'7')
}

/// Whether a root's `$schema` names draft 3.
pub(crate) fn declares_draft_3(root: &JsonObject) -> bool {
    root.find("$schema").and_then(Value::as_str).is_some_and(|uri| names_draft(uri, b'3'..=b'3'))
}

/// Draft 3's keywords that no later draft reads, which every validator of draft 4 on (ajv has
/// no draft 3) and every provider ignores, so the constraints they make would be lost: written
/// in draft 2020-12's terms on every node of a schema whose `$schema` names draft 3 (run by
/// [`process_json_schema`], before any provider's steps; `providers::fix_root_structure` then
/// removes the `$schema`, as for draft 4's forms). Each is a `schema/draft3-keyword` change:
/// - `divisibleBy: n` → `multipleOf: n` (a value that is no number above 0 removed);
/// - `extends` (a schema or a list of them) → `allOf` of them: the value matches them too;
/// - `disallow` (a type name or a schema, or a list of them) → `not: {type: names}`, or
///   `not: {anyOf: [{type: name}..., schema...]}` with schemas; `"any"` → `not: {}` (no value).
/// - a `type` list with schemas (draft 3's union type) → `anyOf: [{type: name}..., schema...]`
///   ([`rewrite_draft3_type`]).
///
/// Where the node has the keyword it becomes already (`multipleOf`, `not`), both hold: the new
/// one goes under `allOf`. Draft 3's `required: true` on a property is lifted into the
/// parent's `required` by [`fix_properties_and_required`] (`schema/draft3-required`), and its
/// `dependencies` naming one property becomes `dependentRequired` with draft 4-7's
/// (`providers::split_dependencies`).
pub(crate) fn rewrite_draft3(node: &mut Value, cx: &mut Cx, depth: usize) -> Result<()> {
    if depth > 512 {
        return Ok(());
    }
    let Value::Object(obj) = node else { return Ok(()) };
    rewrite_draft3_node(obj, cx);
    // Draft 3's `dependencies` schemas, which the walker does not know as subschemas.
    for_each_dependency_mut(obj, cx, &mut |dep, cx| rewrite_draft3(dep, cx, depth + 1))?;
    crate::schema::walk::for_each_subschema_mut(obj, cx, &mut |sub, cx| rewrite_draft3(sub, cx, depth + 1))
}

/// Calls `f` on each value of a node's `dependencies` object (draft 3 to 7: a schema, or a
/// property list, which `f` passes over), at its place: the walker does not know them as
/// subschemas.
fn for_each_dependency_mut(obj: &mut JsonObject, cx: &mut Cx, f: &mut dyn FnMut(&mut Value, &mut Cx) -> Result<()>) -> Result<()> {
    let Some(Value::Object(deps)) = obj.get_mut("dependencies") else { return Ok(()) };
    cx.at("dependencies", |cx| {
        for (name, dep) in deps.iter_mut() {
            cx.at(name, |cx| f(dep, cx))?;
        }
        Ok(())
    })
}

/// `minContains` and `maxContains`, which draft 2019-09 added: under a `$schema` of draft 3 to 7
/// they are no keywords (ajv's draft-07 mode ignores them too), and a `contains` beside
/// `minContains: 0` still requires a matching item. Removed from every node, each place a
/// `schema/draft7-contains-bounds` change, so no later step reads them as draft 2020-12 does.
fn remove_contains_bounds(node: &mut Value, cx: &mut Cx, depth: usize) -> Result<()> {
    if depth > 512 {
        return Ok(());
    }
    let Value::Object(obj) = node else { return Ok(()) };
    let removed: Vec<String> = ["minContains", "maxContains"].into_iter().filter(|k| obj.take(k).is_some()).map(|k| format!("`{k}`")).collect();
    if !removed.is_empty() {
        let contains = if obj.has("contains") { " (`contains` requires a matching item)" } else { "" };
        cx.change(
            "schema/draft7-contains-bounds",
            format!("{} removed: no keyword{} under the schema's `$schema` (draft 3 to 7){contains}", removed.join(" and "), if removed.len() > 1 { "s" } else { "" }),
        );
    }
    // Draft 4 to 7's `dependencies` schemas, which the walker does not know as subschemas.
    for_each_dependency_mut(obj, cx, &mut |dep, cx| remove_contains_bounds(dep, cx, depth + 1))?;
    crate::schema::walk::for_each_subschema_mut(obj, cx, &mut |sub, cx| remove_contains_bounds(sub, cx, depth + 1))
}

/// Adds `key: value` to a node, under `allOf` where the node has `key` already (both hold).
fn add_constraint(obj: &mut JsonObject, key: &str, value: Value) {
    if !obj.has(key) {
        obj.put(key, value);
        return;
    }
    let one = object([(key, value)]);
    match obj.get_mut("allOf") {
        Some(Value::Array(all)) => all.push(one),
        _ => {
            obj.put("allOf", Value::Array(vec![one]));
        }
    }
}

fn rewrite_draft3_node(obj: &mut JsonObject, cx: &mut Cx) {
    let mut said: Vec<(&'static str, String)> = Vec::new();
    if let Some(v) = obj.take("divisibleBy") {
        if v.as_f64().is_some_and(|f| f > 0.0) {
            add_constraint(obj, "multipleOf", v);
            said.push(("divisibleBy", "`divisibleBy` (draft 3) written as `multipleOf`, as later drafts name it".owned()));
        } else {
            said.push(("divisibleBy", format!("`divisibleBy` (draft 3) was {}, not a number above 0; removed", short_json(&v))));
        }
    }
    if let Some(v) = obj.take("extends") {
        let all = match v {
            Value::Array(a) => a,
            one => vec![one],
        };
        let (schemas, bad): (Vec<Value>, Vec<Value>) = all.into_iter().partition(|s| s.is_object() || s.is_boolean());
        let n = schemas.len();
        for schema in schemas {
            match obj.get_mut("allOf") {
                Some(Value::Array(a)) => a.push(schema),
                _ => {
                    obj.put("allOf", Value::Array(vec![schema]));
                }
            }
        }
        let mut message = match n {
            0 => "`extends` (draft 3) had no schema; removed".owned(),
            _ => "`extends` (draft 3) written as `allOf`: the value matches the schemas it extends too".owned(),
        };
        if !bad.is_empty() {
            message.push_str(&format!("; its values that are no schema removed: {}", short_json(&Value::Array(bad))));
        }
        said.push(("extends", message));
    }
    if let Some(v) = obj.take("disallow") {
        let all = match v {
            Value::Array(a) => a,
            one => vec![one],
        };
        let (mut names, mut schemas, mut bad, mut any) = (Vec::new(), Vec::new(), Vec::new(), false);
        for x in all {
            match x {
                Value::String(t) if t == "any" => any = true,
                Value::String(t) if TYPE_NAMES.contains(&t.as_str()) => {
                    if !names.contains(&t) {
                        names.push(t);
                    }
                }
                s @ (Value::Object(_) | Value::Bool(_)) => schemas.push(s),
                other => bad.push(other),
            }
        }
        let type_of = |names: Vec<String>| match &names[..] {
            [one] => string(one),
            _ => Value::Array(names.into_iter().map(Value::String).collect()),
        };
        let not = if any {
            Some(Value::Object(Map::new()))
        } else if schemas.is_empty() && !names.is_empty() {
            Some(object([("type", type_of(names))]))
        } else if !schemas.is_empty() {
            let mut branches: Vec<Value> = names.into_iter().map(|t| object([("type", Value::String(t))])).collect();
            branches.extend(schemas);
            Some(object([("anyOf", Value::Array(branches))]))
        } else {
            None
        };
        let mut message = match &not {
            Some(not) => format!("`disallow` (draft 3) written as `not: {}`", short_json(not)),
            None => "`disallow` (draft 3) named no type or schema; removed".owned(),
        };
        if !bad.is_empty() {
            message.push_str(&format!("; its values that are neither a type nor a schema removed: {}", short_json(&Value::Array(bad))));
        }
        if let Some(not) = not {
            add_constraint(obj, "not", not);
        }
        said.push(("disallow", message));
    }
    if let Some(message) = rewrite_draft3_type(obj) {
        said.push(("type", message));
    }
    for (key, message) in said {
        cx.at(key, |cx| {
            cx.change("schema/draft3-keyword", message);
            Ok(())
        })
        .ok();
    }
}

/// Draft 3's union type: a `type` list that holds schemas beside type names (a value is of one
/// of the types or matches one of the schemas), which no later draft reads, written as an
/// `anyOf` of a branch per type name (`{type: name}`, in the list's order) and the schemas;
/// under `allOf` where the node has an `anyOf` already (both hold). `"any"` among them: no
/// constraint, the `type` goes; a member that is no type name and no schema is removed (as
/// [`normalize_type`] removes it from a list of names). A list of names only is left to
/// [`normalize_type`]. The message for the `schema/draft3-keyword` change; `None`: nothing done.
fn rewrite_draft3_type(obj: &mut JsonObject) -> Option<String> {
    if !matches!(obj.find("type"), Some(Value::Array(ts)) if ts.iter().any(|t| t.is_object() || t.is_boolean())) {
        return None;
    }
    let Some(Value::Array(ts)) = obj.take("type") else { return None };
    let (mut branches, mut bad, mut any): (Vec<Value>, Vec<Value>, bool) = (Vec::new(), Vec::new(), false);
    for t in ts {
        match t {
            Value::String(n) if n.eq_ignore_ascii_case("any") => any = true,
            // Its spelling kept: a name in another case is read (and reported) in its branch.
            Value::String(n) if TYPE_NAMES.contains(&n.to_ascii_lowercase().as_str()) => {
                let branch = object([("type", Value::String(n))]);
                if !branches.contains(&branch) {
                    branches.push(branch);
                }
            }
            s @ (Value::Object(_) | Value::Bool(_)) => branches.push(s),
            other => bad.push(other),
        }
    }
    let mut message = if any {
        "`type` (draft 3) names \"any\" beside its schemas: any value is of it; removed".owned()
    } else if branches.is_empty() {
        "`type` (draft 3) held no type name or schema; removed".owned()
    } else {
        let union = Value::Array(branches);
        let m = format!("`type` (draft 3) with schemas among its types written as `anyOf: {}`: the value is of one of the types or matches one of the schemas", short_json(&union));
        add_constraint(obj, "anyOf", union);
        m
    };
    if !bad.is_empty() {
        message.push_str(&format!("; its members that are neither a type nor a schema removed: {}", short_json(&Value::Array(bad))));
    }
    Some(message)
}

/// Drafts 3 to 7 ignore every keyword beside a `$ref` ("All other properties in a "$ref"
/// object MUST be ignored"); draft 2019-09 and later apply them, and so does ajv (the validator
/// most JavaScript MCP servers use) in its draft-07 mode. Whoever wrote `maximum: 5` beside a
/// `$ref` meant it: the constraints stay, as every later step reads them (the converted schema
/// is then at least as strict as either reading), and where the root's `$schema` names one of
/// those drafts, each place is reported, a change. Draft 4 to 7's `dependencies` (whose schemas
/// become `dependentSchemas`, `super::providers::fix_root_structure`) is searched too.
/// (Not counted against the node budget: a depth bound of its own.)
fn report_ref_siblings(obj: &JsonObject, cx: &mut Cx, depth: usize) -> Result<()> {
    if depth > 512 {
        return Ok(());
    }
    if obj.has("$ref") {
        let kept: Vec<String> = obj.keys().filter(|k| *k != "$ref" && !is_annotation(k)).map(|k| format!("`{k}`")).collect();
        if !kept.is_empty() {
            cx.change(
                "schema/draft7-ref-siblings",
                format!(
                    "{} beside `$ref` kept as constraints: the schema's `$schema` (draft 3 to 7) ignores every keyword beside a `$ref`, draft 2019-09 and later (and ajv, in every draft) apply them",
                    kept.join(", ")
                ),
            );
        }
    }
    for (key, value) in obj.iter() {
        match (walk::slot(key, value), value) {
            (walk::Slot::Map, Value::Object(m)) => {
                for (name, sub) in m.iter() {
                    if let Value::Object(o) = sub {
                        cx.at(key, |cx| cx.at(name, |cx| report_ref_siblings(o, cx, depth + 1)))?;
                    }
                }
            }
            // Draft 4 to 7's `dependencies` holds schemas as `dependentSchemas` does (and lists
            // of names, no schemas).
            (walk::Slot::None, Value::Object(m)) if key == "dependencies" => {
                for (name, sub) in m.iter() {
                    if let Value::Object(o) = sub {
                        cx.at(key, |cx| cx.at(name, |cx| report_ref_siblings(o, cx, depth + 1)))?;
                    }
                }
            }
            (walk::Slot::Array, Value::Array(a)) => {
                for (i, sub) in a.iter().enumerate() {
                    if let Value::Object(o) = sub {
                        cx.at(key, |cx| cx.at(&i.to_string(), |cx| report_ref_siblings(o, cx, depth + 1)))?;
                    }
                }
            }
            (walk::Slot::Single, Value::Object(o)) => cx.at(key, |cx| report_ref_siblings(o, cx, depth + 1))?,
            _ => {}
        }
    }
    Ok(())
}

/// A root that is a local `$ref` (`{"$ref": "#/definitions/Args", "definitions": {...}}`, as
/// zod-to-json-schema writes a named schema) becomes its target, with the root's other keywords
/// combined with it as `$ref` siblings are (see [`crate::schema::siblings`]) and its definitions kept for
/// the references inside. Left as it was, the root would be read as an object without
/// properties, and the target's properties would be lost under the `properties: {}` it gets.
fn resolve_root_ref(obj: &mut JsonObject, cx: &mut Cx) {
    // A chain of references to references, within reason; a cycle is left to the inlining.
    let mut seen: Vec<String> = Vec::new();
    while seen.len() < 8 {
        let reference = match obj.find("$ref") {
            Some(Value::String(r)) if r != "#" && !seen.contains(r) => r.clone(),
            _ => return,
        };
        seen.push(reference.clone());
        let root = Value::Object(std::mem::take(obj));
        let target = match crate::schema::refs::lookup(&root, &reference) {
            Some(Value::Object(t)) => Some(t.clone()),
            _ => None,
        };
        let Value::Object(mut siblings) = root else { return };
        let Some(mut merged) = target else {
            *obj = siblings;
            return;
        };
        siblings.take("$ref");
        // A root that says it is an object (`type: "object"`, as MCP has every tool's) beside a
        // reference to a schema of another type (draft 7 reads the reference alone, later drafts
        // both, which nothing meets) stays an object: wrapped, its calls' arguments would be no
        // object. The reference is dropped and reported.
        let admits_object = |o: &JsonObject| match o.get("type") {
            Some(Value::String(t)) => t == "object",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
            _ => true,
        };
        if siblings.contains_key("type") && admits_object(&siblings) && !admits_object(&merged) {
            let theirs = merged.get("type").map(crate::text::to_string).unwrap_or_default();
            cx.problem(
                "schema/root-ref-type",
                format!("the root schema says type \"object\" and is the reference \"{reference}\" to a schema of type {theirs}: the reference is dropped, as a tool's arguments are an object"),
            );
            *obj = siblings;
            return;
        }
        *obj = crate::schema::siblings::merge(std::mem::take(&mut merged), siblings, cx);
        cx.change("schema/root-ref", format!("the root schema is the reference \"{reference}\"; its target is used as the root"));
    }
}

enum RootKind {
    Object,
    Wrap,
}

fn root_kind(obj: &JsonObject) -> RootKind {
    match obj.find("type") {
        Some(Value::String(t)) if t == "object" => return RootKind::Object,
        Some(Value::String(_)) => return RootKind::Wrap,
        Some(Value::Array(ts)) => {
            return if ts.iter().any(|t| t == "object") { RootKind::Object } else { RootKind::Wrap };
        }
        _ => {}
    }
    if OBJECT_KEYWORDS.iter().any(|k| obj.has(k)) {
        return RootKind::Object;
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = obj.get(key) {
            let all_objects = !branches.is_empty()
                && branches.iter().all(|b| match b {
                    Value::Object(o) => matches!(root_kind(o), RootKind::Object),
                    _ => false,
                });
            return if all_objects { RootKind::Object } else { RootKind::Wrap };
        }
    }
    if obj.has("$ref") || obj.is_empty() || obj.keys().all(|k| is_annotation(k)) {
        // `{}`, `{description}` or a bare `$ref` (resolved later): an object root is the
        // only useful reading for tool arguments.
        return RootKind::Object;
    }
    RootKind::Wrap
}

/// The JSON Schema type names.
pub const TYPE_NAMES: &[&str] = &["object", "array", "string", "number", "integer", "boolean", "null"];

/// Normalises `type`: known names in another case (`"Object"`) are lower-cased; names that are
/// no JSON Schema type (`"float"`, `"any"`) are removed (the node then accepts any value, as it
/// would for a validator that ignores them), and both are reported.
pub fn normalize_type(obj: &mut JsonObject, cx: &mut Cx) {
    let fix = |t: &str| -> Option<Option<String>> {
        if TYPE_NAMES.contains(&t) {
            return None;
        }
        let lower = t.to_ascii_lowercase();
        Some(TYPE_NAMES.contains(&lower.as_str()).then_some(lower))
    };
    match obj.find_mut("type") {
        Some(Value::String(t)) => match fix(t) {
            None => {}
            Some(Some(lower)) => {
                cx.change("schema/type-case", format!("type \"{t}\" read as \"{lower}\""));
                *t = lower;
            }
            Some(None) => {
                let was = t.clone();
                obj.take("type");
                cx.change("schema/unknown-type", format!("type \"{was}\" is not a JSON Schema type; removed"));
            }
        },
        Some(Value::Array(ts)) if ts.is_empty() => {
            obj.take("type");
            cx.at("type", |cx| {
                cx.change("schema/bad-keyword-value", "`type` was [], not a type or a non-empty list of types; removed");
                Ok(())
            })
            .ok();
        }
        Some(Value::Array(ts)) => {
            let mut out: Vec<Value> = Vec::with_capacity(ts.len());
            let mut changed = false;
            for v in ts.iter() {
                match v.as_str().map(|t| (t, fix(t))) {
                    Some((t, None)) => out.push(string(t)),
                    Some((_, Some(Some(lower)))) => {
                        out.push(Value::String(lower));
                        changed = true;
                    }
                    _ => changed = true,
                }
            }
            if changed {
                cx.change("schema/type-case", format!("type list {} normalised", crate::text::to_string(&Value::Array(ts.clone()))));
                if out.is_empty() {
                    obj.take("type");
                } else {
                    *ts = out;
                }
            }
        }
        Some(other) if !other.is_null() => {
            let was = json_type(other);
            obj.take("type");
            cx.change("schema/unknown-type", format!("`type` was {was}; removed"));
        }
        _ => {}
    }
}

/// Rewrites what draft 4 wrote differently from draft 2020-12 (which Anthropic checks schemas
/// against, and which the other providers read): a tuple `items: [..]` becomes `prefixItems`
/// (its `additionalItems` the new `items`), and a boolean `exclusiveMinimum`/`exclusiveMaximum`
/// the number of its `minimum`/`maximum` (a `false` one, or one without its bound, goes).
///
/// What no draft reads is removed first ([`remove_unread_tuples`]).
pub fn normalize_draft4(obj: &mut JsonObject, cx: &mut Cx) {
    remove_unread_tuples(obj, cx);
    if matches!(obj.find("items"), Some(Value::Array(_))) && !obj.has("prefixItems") {
        if let Some(tuple) = obj.take("items") {
            obj.put("prefixItems", tuple);
        }
        if let Some(rest) = obj.take("additionalItems") {
            obj.put("items", rest);
        }
        cx.change("schema/draft4-tuple", "tuple `items: [..]` (draft 4) written as `prefixItems`");
    }
    normalize_draft4_bounds(obj, cx);
}

/// The tuples no draft reads, removed and reported (`schema/bad-keyword-value`): an empty tuple
/// `items: []` (its `additionalItems`, which then held for every item, becomes `items`), and a
/// tuple `items: [..]` beside a `prefixItems`, which says the tuple in draft 2020-12's terms. For
/// every provider ([`normalize_draft4`]; Gemini's lowering, which reads draft 4's tuples itself).
pub fn remove_unread_tuples(obj: &mut JsonObject, cx: &mut Cx) {
    if let Some(Value::Array(tuple)) = obj.find("items") {
        let empty = tuple.is_empty();
        let message = match (empty, obj.has("prefixItems")) {
            (true, _) => "`items` was [], an empty tuple (a tuple has at least one item); removed",
            (false, true) => "`items` was a tuple (draft 4) beside `prefixItems`, which says the tuple in draft 2020-12's terms; removed",
            (false, false) => "",
        };
        if !message.is_empty() {
            obj.take("items");
            if empty {
                if let Some(rest) = obj.take("additionalItems") {
                    obj.put("items", rest);
                }
            }
            cx.at("items", |cx| {
                cx.change("schema/bad-keyword-value", message);
                Ok(())
            })
            .ok();
        }
    }
}

/// [`normalize_draft4`]'s bounds alone: a boolean `exclusiveMinimum`/`exclusiveMaximum` the number
/// of its `minimum`/`maximum` (a `false` one, or one without its bound, goes). For Gemini, whose
/// lowering reads draft 4's tuples itself, before [`fix_keyword_values`] (which would take a
/// boolean bound for a value of the wrong kind).
pub fn normalize_draft4_bounds(obj: &mut JsonObject, cx: &mut Cx) {
    // A node without a boolean value has no draft 4 bound: one look at the values, not two key
    // lookups.
    if !obj.values().any(Value::is_boolean) {
        return;
    }
    for (exclusive, bound, moved) in draft4_exclusives(obj) {
        let message = match moved {
            true => format!("boolean `{exclusive}` (draft 4) written as the number of its `{bound}`"),
            false => format!("boolean `{exclusive}` (draft 4) removed: it qualified no `{bound}`"),
        };
        cx.change("schema/draft4-exclusive", message);
    }
}

/// Whether `obj` has a boolean (draft 4) `exclusiveMinimum` or `exclusiveMaximum`.
pub(crate) fn has_draft4_exclusive(obj: &JsonObject) -> bool {
    matches!(obj.find("exclusiveMinimum"), Some(Value::Bool(_))) || matches!(obj.find("exclusiveMaximum"), Some(Value::Bool(_)))
}

/// A boolean `exclusiveMinimum`/`exclusiveMaximum` as the number of its bound (a `true` one
/// takes its `minimum`/`maximum`; a `false` one, or one without its bound, goes): what it did, as
/// (keyword, bound, whether the bound moved). Bounds combine only once written so (an `allOf` of
/// `maximum: 10, exclusiveMaximum: true` and `maximum: 5` is `maximum: 5`).
pub(crate) fn draft4_exclusives(obj: &mut JsonObject) -> Vec<(&'static str, &'static str, bool)> {
    let mut done = Vec::new();
    for (exclusive, bound) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
        let Some(Value::Bool(on)) = obj.find(exclusive) else { continue };
        let on = *on;
        obj.take(exclusive);
        let moved = match on.then(|| obj.take(bound)).flatten() {
            Some(n) => {
                obj.insert(exclusive.into(), n);
                true
            }
            None => false,
        };
        done.push((exclusive, bound, moved));
    }
    done
}

/// Keyword values that JSON Schema 2020-12's meta-schema refuses, which Anthropic and OpenAI
/// refuse a whole tool for: a `type` list or a `required` that repeats a name loses the repeat,
/// and a keyword value of the wrong kind (`minLength: -1`, `format: 5`, `enum: "a"`, a `pattern`
/// that is no regular expression, see [`crate::schema::walk::ValueRule`]) is removed; of a
/// `dependentRequired`, an entry that is no list of names goes and a name listed twice is kept
/// once; of a `patternProperties`, an entry whose key is no regular expression goes (the
/// meta-schema reads those keys as `pattern`'s value, `format: "regex"`). Every one is reported.
pub fn fix_keyword_values(obj: &mut JsonObject, cx: &mut Cx) {
    for key in ["type", "required"] {
        let Some(Value::Array(names)) = obj.find_mut(key) else { continue };
        // Names only (what else a list holds is another matter, left as it is): each after its
        // first. Most lists repeat nothing: those are left as they are.
        let repeats: Vec<bool> = {
            let mut seen = NameSet::default();
            names.iter().map(|v| v.as_str().is_some_and(|n| !seen.insert(n))).collect()
        };
        if !repeats.contains(&true) {
            continue;
        }
        let before = names.len();
        let mut i = 0;
        names.retain(|_| {
            i += 1;
            !repeats[i - 1]
        });
        if names.len() < before {
            let message = format!("`{key}` named {} more than once; each kept once", if key == "type" { "a type" } else { "a property" });
            cx.at(key, |cx| {
                cx.change("schema/duplicate-names", message);
                Ok(())
            })
            .ok();
        }
    }
    let bad: Vec<(String, crate::schema::walk::ValueRule)> = obj
        .iter()
        .filter_map(|(k, v)| crate::schema::walk::value_rule(k).filter(|r| !r.fits_value(v)).map(|r| (k.clone(), r)))
        .collect();
    for (key, rule) in bad {
        // A `dependentRequired` object keeps its lists of names: what is no such list goes, and
        // a name listed twice is kept once.
        if let (crate::schema::walk::ValueRule::NameLists, Some(Value::Object(deps))) = (rule, obj.find_mut(&key)) {
            let mut said: Vec<(String, &'static str, String)> = Vec::new();
            deps.retain(|name, names| {
                if let Value::Array(list) = names {
                    if list.iter().all(Value::is_string) {
                        let before = list.len();
                        let mut kept: Vec<Value> = Vec::with_capacity(before);
                        for n in list.drain(..) {
                            if !kept.contains(&n) {
                                kept.push(n);
                            }
                        }
                        *list = kept;
                        if list.len() < before {
                            said.push((name.clone(), "schema/duplicate-names", format!("`{key}` entry named a property more than once; each kept once")));
                        }
                        return true;
                    }
                }
                said.push((name.clone(), "schema/bad-keyword-value", format!("`{key}` entry was {}, not a list of names; removed", short_json(names))));
                false
            });
            for (name, rule, message) in said {
                cx.at(&key, |cx| {
                    cx.at(&name, |cx| {
                        cx.change(rule, message);
                        Ok(())
                    })
                })
                .ok();
            }
            continue;
        }
        let was = obj.take(&key).map_or_else(String::new, |v| short_json(&v));
        cx.at(&key, |cx| {
            cx.change("schema/bad-keyword-value", format!("`{key}` was {was}, not {}; removed", rule.expected()));
            Ok(())
        })
        .ok();
    }
    if let Some(Value::Object(map)) = obj.find_mut("patternProperties") {
        let regex = crate::schema::walk::regex_parses;
        if map.keys().any(|k| !regex(k)) {
            let mut removed = Vec::new();
            map.retain(|k, _| {
                let keep = regex(k);
                if !keep {
                    removed.push(k.clone());
                }
                keep
            });
            for key in removed {
                let message = format!("`patternProperties` key {} was not a regular expression; its entry removed", short_json(&Value::String(key.clone())));
                cx.at("patternProperties", |cx| {
                    cx.at(&key, |cx| {
                        cx.change("schema/bad-keyword-value", message);
                        Ok(())
                    })
                })
                .ok();
            }
        }
    }
}

/// Keywords that describe but never constrain.
pub fn is_annotation(key: &str) -> bool {
    matches!(
        key,
        "$schema" | "$id" | "$comment" | "title" | "description" | "examples" | "example" | "default" | "deprecated"
            | "readOnly" | "writeOnly" | "$defs" | "definitions"
    ) || key.starts_with("x-")
}

/// Makes `properties` an object of schemas and `required` an array of unique strings naming
/// existing properties, reporting every removal. Used at the root and on every object node.
pub fn fix_properties_and_required(obj: &mut JsonObject, cx: &mut Cx) {
    match obj.find_mut("properties") {
        None => {
            obj.put("properties", Value::Object(Map::new()));
        }
        Some(Value::Object(_)) => lift_draft3_required(obj, cx),
        Some(other) => {
            let t = json_type(other);
            cx.at("properties", |cx| {
                cx.change("schema/bad-properties", format!("`properties` was {t}, not an object; replaced by {{}}"));
                Ok(())
            })
            .ok();
            obj.put("properties", Value::Object(Map::new()));
        }
    }
    fix_required(obj, cx);
}

/// Draft 3's `required: true` on a property of `obj` lifted into `obj`'s `required`
/// (`schema/draft3-required`); its `required: false`, the default, removed without a word.
pub fn lift_draft3_required(obj: &mut JsonObject, cx: &mut Cx) {
    let Some(Value::Object(props)) = obj.find_mut("properties") else { return };
    let mut lifted = Vec::new();
    for (name, p) in props.iter_mut() {
        if let Value::Object(po) = p {
            if let Some(Value::Bool(r)) = po.find("required") {
                if *r {
                    lifted.push(name.clone());
                }
                po.take("required");
            }
        }
    }
    // The object's own `required` that is no list (draft 3's `true` there is for its parent, as
    // on array items) gives way to the list of names lifted, as `fix_required` would remove it.
    if let Some(req) = obj.find("required").filter(|r| !lifted.is_empty() && !r.is_array()) {
        let t = json_type(req);
        cx.at("required", |cx| {
            cx.change("schema/bad-required", format!("`required` was {t}, not an array; replaced by the properties marked `required: true`"));
            Ok(())
        })
        .ok();
        obj.put("required", Value::Array(Vec::new()));
    }
    for name in lifted {
        cx.at("properties", |cx| {
            cx.at(&name, |cx| {
                cx.change("schema/draft3-required", "`required: true` on the property moved into the parent's `required`");
                Ok(())
            })
        })
        .ok();
        let req = obj.entry("required").or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(r) = req {
            if !r.iter().any(|v| v.as_str() == Some(name.as_str())) {
                r.push(Value::String(name));
            }
        }
    }
}

/// Keeps only the unique strings in `required` that name an existing property. A name that
/// `properties` does not declare, on an object that takes undeclared properties (no
/// `additionalProperties: false`, no `patternProperties`, `propertyNames` or
/// `unevaluatedProperties` that may refuse it), is a property the server requires all the same: it is declared with the schema
/// that takes it there (`{}`, any value, or the `additionalProperties` schema) and stays
/// required. Removed, the model would not know to give it, and where strict mode then closes
/// the object it could not give it at all: no call could succeed. On an object that refuses
/// undeclared properties no value can have it, and the name is removed.
pub fn fix_required(obj: &mut JsonObject, cx: &mut Cx) {
    let Some(req) = obj.find("required") else { return };
    let props = obj.find("properties").and_then(Value::as_object);
    let Value::Array(items) = req else {
        let t = json_type(req);
        cx.at("required", |cx| {
            cx.change("schema/bad-required", format!("`required` was {t}, not an array; removed"));
            Ok(())
        })
        .ok();
        obj.take("required");
        return;
    };
    let mut kept: Vec<Value> = Vec::with_capacity(items.len());
    // The names kept (each once), and those taken as declared below: sets, as a `required` may
    // list thousands of names.
    let mut kept_names = NameSet::default();
    let mut removed = Vec::new();
    let mut declared: Vec<String> = Vec::new();
    // Looked up at the first name `properties` does not declare (almost no object has one).
    let mut takes: Option<bool> = None;
    let mut takes_undeclared = || {
        *takes.get_or_insert_with(|| {
            !(obj.has("patternProperties") || obj.has("unevaluatedProperties") || obj.has("propertyNames"))
                && matches!(obj.find("additionalProperties"), None | Some(Value::Bool(true) | Value::Object(_)))
        })
    };
    for item in items {
        match item.as_str() {
            Some(name) if props.is_some_and(|p| p.has(name)) || kept_names.contains(name) => {
                if kept_names.insert(name) {
                    kept.push(item.clone());
                }
            }
            Some(name) if takes_undeclared() => {
                kept_names.insert(name);
                declared.push(name.owned());
                kept.push(item.clone());
            }
            Some(name) => removed.push(format!("\"{name}\"")),
            None => removed.push(crate::text::to_string(item)),
        }
    }
    if !declared.is_empty() {
        let schema = match obj.find("additionalProperties") {
            Some(s @ Value::Object(_)) => s.clone(),
            _ => Value::Object(Map::new()),
        };
        let what = if schema.as_object().is_some_and(Map::is_empty) { "any value (`{}`)" } else { "the object's `additionalProperties` schema" };
        let names = declared.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ");
        if !obj.find("properties").is_some_and(Value::is_object) {
            obj.put("properties", Value::Object(Map::new()));
        }
        if let Some(Value::Object(p)) = obj.find_mut("properties") {
            for name in &declared {
                p.insert(name.clone(), schema.clone());
            }
        }
        cx.at("required", |cx| {
            cx.change(
                "schema/required-undeclared",
                format!("`required` names properties that `properties` does not declare: {names}; declared as {what}, as the object takes them, and still required"),
            );
            Ok(())
        })
        .ok();
    }
    if !removed.is_empty() {
        cx.at("required", |cx| {
            cx.change(
                "schema/required-missing-property",
                format!("removed from `required` (no such property, and the object refuses undeclared ones): {}", removed.join(", ")),
            );
            Ok(())
        })
        .ok();
    }
    if !removed.is_empty() || !declared.is_empty() {
        obj.put("required", Value::Array(kept));
    }
}

/// What joins `note` to a description (trimmed at its end) that [`append_description`] extends:
/// a space after a sentence's end or before a parenthesised note, else a full stop and a space.
pub(crate) fn note_separator(description: &str, note: &str) -> &'static str {
    if note.starts_with('(') || description.ends_with(['.', '!', '?', ')']) {
        " "
    } else {
        ". "
    }
}

/// Appends a sentence to a schema node's description, creating it if needed.
pub fn append_description(obj: &mut JsonObject, note: &str) {
    match obj.find_mut("description") {
        Some(Value::String(d)) if !d.trim().is_empty() => {
            let trimmed = d.trim_end();
            let sep = note_separator(trimmed, note);
            let mut s = String::with_capacity(trimmed.len() + sep.len() + note.len());
            #[cfg(test)]
            DESCRIPTION_BYTES.with(|b| b.set(b.get() + s.capacity()));
            s.push_str(trimmed);
            s.push_str(sep);
            s.push_str(note);
            *d = s;
        }
        _ => {
            obj.put("description", string(note));
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Bytes written into descriptions by [`append_description`] and [`Notes`] on this thread,
    /// for tests that a node's notes cost in proportion to them.
    pub(crate) static DESCRIPTION_BYTES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Notes `(...)` appended to a node's description one after another, as [`append_description`]
/// appends each (a note starts with "(", so the separator is a space), the description written
/// once: appending each copied the description so far, quadratic in a node's notes (seconds for
/// 64,000 unknown keywords).
#[derive(Default)]
pub(crate) struct Notes(Option<String>);

impl Notes {
    /// Appends `note`, which starts with "(". The first puts the description where
    /// [`append_description`] does (in place, or last if the node has none), which
    /// [`Notes::write`] fills.
    pub(crate) fn add(&mut self, obj: &mut JsonObject, note: &str) {
        #[cfg(test)]
        DESCRIPTION_BYTES.with(|b| b.set(b.get() + note.len() + 1));
        if let Some(joined) = &mut self.0 {
            joined.push(' ');
            joined.push_str(note);
            return;
        }
        let mut joined = String::new();
        match obj.find("description") {
            Some(Value::String(d)) if !d.trim().is_empty() => {
                joined.push_str(d.trim_end());
                joined.push(' ');
            }
            Some(_) => {}
            None => obj.put("description", Value::Null),
        }
        joined.push_str(note);
        self.0 = Some(joined);
    }

    /// The description with the notes, if there are any.
    pub(crate) fn write(self, obj: &mut JsonObject) {
        if let Some(joined) = self.0 {
            obj.put("description", Value::String(joined));
        }
    }
}

/// A short readable rendering of a JSON value for descriptions (`"a"`, `10`, `[1, 2]`), its
/// numbers as JavaScript spells them ([`crate::text::to_string_js`]).
pub fn short_json(v: &Value) -> String {
    let mut out = String::new();
    push_short_json(&mut out, v);
    out
}

/// Appends [`short_json`] of `v` to `out`.
pub(crate) fn push_short_json(out: &mut String, v: &Value) {
    let start = out.len();
    match v {
        // A string as written, in quotes; one with a quote, a backslash or a control character
        // escaped as JSON, so that `"a", "b"` is always two values.
        Value::String(s) if !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) => {
            out.reserve(s.len() + 2);
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        // Numbers as JavaScript spells them: the same note from JSON text as from JS objects.
        other => out.push_str(&crate::text::to_string_js(other)),
    }
    cut_short(out, start);
}

/// Cuts what `out` holds from `start` as [`short_json`] is cut: past 80 characters, to the
/// first 77 and "...", never inside an escape (`\"`, `\u001b`) of a JSON string.
pub(crate) fn cut_short(out: &mut String, start: usize) {
    if out.len() - start > 80 {
        if let Some((cut, _)) = out[start..].char_indices().nth(80).and(out[start..].char_indices().nth(77)) {
            let end = start + cut;
            out.truncate(escape_start_before(out.as_bytes(), start, end).unwrap_or(end));
            out.push_str("...");
        }
    }
}

/// The start of an escape that `text[from..end]` ends inside of, if it does: a backslash that
/// an even run of backslashes precedes, whose escape (two bytes, six for `\u`) goes past `end`.
fn escape_start_before(text: &[u8], from: usize, end: usize) -> Option<usize> {
    let last = (from.max(end.saturating_sub(6))..end).rev().find(|&i| text[i] == b'\\')?;
    let run = text[from..=last].iter().rev().take_while(|&&b| b == b'\\').count();
    let len = if text.get(last + 1) == Some(&b'u') { 6 } else { 2 };
    (run % 2 == 1 && last + len > end).then_some(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The draft tests say what `str::contains` with each draft's name says.
    #[test]
    fn names_draft_is_contains() {
        let contains = |uri: &str, drafts: &[&str]| drafts.iter().any(|d| uri.contains(d));
        for uri in [
            "",
            "http://json-schema.org/draft-07/schema#",
            "http://json-schema.org/draft-04/schema",
            "http://json-schema.org/draft-03/schema#",
            "https://json-schema.org/draft/2020-12/schema",
            "http://json-schema.org/draft-08/schema#",
            "draft-0",
            "draft-05",
            "xdraft-06draft-03",
            "draft-0\u{e9}draft-07",
            "http://json-schema.org/schema#",
        ] {
            assert_eq!(names_draft_4_to_7(uri), contains(uri, &["draft-04", "draft-05", "draft-06", "draft-07"]), "{uri}");
            assert_eq!(names_draft_3_to_7(uri), contains(uri, &["draft-03", "draft-04", "draft-05", "draft-06", "draft-07"]), "{uri}");
            assert_eq!(names_draft(uri, b'3'..=b'3'), uri.contains("draft-03"), "{uri}");
        }
    }

    fn run(v: Value) -> (Value, RootShape, Cx) {
        let mut cx = Cx::new(Limits::default());
        let (out, shape) = process_json_schema(&v, &mut cx);
        (out, shape, cx)
    }

    /// A string is written as it is in quotes unless it holds a quote, a backslash or a control
    /// character: then as JSON, so `["a\", \"b"]` does not read as two values.
    #[test]
    fn short_json_escapes_only_what_would_mislead() {
        assert_eq!(short_json(&json!("plain é")), "\"plain é\"");
        assert_eq!(short_json(&json!("a\", \"b")), "\"a\\\", \\\"b\"");
        assert_eq!(short_json(&json!("line\nnext")), "\"line\\nnext\"");
        assert_eq!(short_json(&json!("c:\\dir")), "\"c:\\\\dir\"");
        assert_eq!(short_json(&json!(["a\"b", 1])), "[\"a\\\"b\",1]");
    }

    /// A cut note never ends inside an escape: the backslash of `\"` or `\u001b` goes with it.
    #[test]
    fn a_cut_note_keeps_escapes_whole() {
        for (v, end) in [
            (json!(format!("x{}", "\"".repeat(60))), "\\\"..."),
            (json!(format!("{}\u{1b}rest of it", "y".repeat(73))), "yy..."),
            (json!(format!("{}\\\\tail of the text here", "z".repeat(74))), "\\\\..."),
        ] {
            let note = short_json(&v);
            assert!(note.ends_with(end), "{note}");
            let body = &note[..note.len() - 3];
            let run = body.bytes().rev().take_while(|&b| b == b'\\').count();
            assert_eq!(run % 2, 0, "{note}");
        }
    }

    /// The same words at the same place are said once (a Gemini union whose null was met by
    /// two steps listed `gemini/nullable` twice); at another place, or other words, again.
    #[test]
    fn a_diagnostic_is_said_once_per_place() {
        let mut cx = Cx::new(Limits::default());
        cx.change("r/a", "one");
        cx.change("r/b", "two");
        cx.change("r/a", "one");
        cx.change("r/a", "other");
        let _ = cx.at("properties", |cx| {
            cx.change("r/a", "one");
            cx.problem("r/a", "one");
            cx.problem("r/a", "one");
            Ok(())
        });
        let said: Vec<(&str, &str, &str)> = cx.changes.iter().map(|d| (d.path.as_str(), d.rule, d.message.as_str())).collect();
        assert_eq!(said, [("", "r/a", "one"), ("", "r/b", "two"), ("", "r/a", "other"), ("/properties", "r/a", "one")]);
        assert_eq!(cx.problems.len(), 1);
    }

    #[test]
    fn missing_null_and_non_objects_become_the_empty_object() {
        for input in [Value::Null, json!("string"), json!(42), json!([1]), json!(true)] {
            let (out, shape, _) = run(input.clone());
            assert_eq!(out, empty_object_schema(), "input {input}");
            assert_eq!(shape, RootShape::Object);
        }
        let (_, _, cx) = run(json!("s"));
        assert_eq!(cx.changes[0].rule, "schema/non-object-root");
        let (_, _, cx) = run(json!(false));
        assert_eq!(cx.problems[0].rule, "schema/false-root");
    }

    #[test]
    fn object_schema_keeps_everything() {
        let input = json!({"type":"object","description":"d","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false,"x-vendor":1});
        let (out, _, cx) = run(input.clone());
        assert_eq!(out, input);
        assert!(cx.changes.is_empty());
    }

    /// A root that says `type: "object"` beside a reference to a schema of another type stays an
    /// object root, the reference dropped and reported, rather than wrapped (its calls'
    /// arguments would be no object), whatever the draft; a reference to an object stays read.
    #[test]
    fn a_root_of_type_object_referring_to_another_type_stays_an_object() {
        for (schema, defs) in [("https://json-schema.org/draft/2020-12/schema", "$defs"), ("http://json-schema.org/draft-07/schema#", "definitions")] {
            for ty in [json!("object"), json!(["object", "null"])] {
                let input = json!({"$schema": schema, "type": ty, "$ref": format!("#/{defs}/Q"), defs: {"Q": {"type": "string"}}, "properties": {"a": {}}});
                let (out, shape, cx) = run(input);
                assert_eq!(shape, RootShape::Object, "{schema} {ty}");
                assert_eq!((out["type"].as_str(), out.get("$ref"), &out["properties"]), (Some("object"), None, &json!({"a": {}})), "{schema} {ty}");
                assert_eq!(cx.problems.iter().map(|p| p.rule).collect::<Vec<_>>(), ["schema/root-ref-type"], "{schema} {ty}");
                assert!(cx.problems[0].message.contains("type \"string\""), "{}", cx.problems[0].message);
            }
        }
        // Without a type of its own, or a reference to an object: the target, as before.
        let (_, shape, _) = run(json!({"$ref": "#/$defs/Q", "$defs": {"Q": {"type": "string"}}}));
        assert_eq!(shape, RootShape::Wrapped);
        let (out, shape, cx) = run(json!({"type": "object", "$ref": "#/$defs/Q", "$defs": {"Q": {"type": "object", "properties": {"q": {}}}}}));
        assert_eq!((shape, &out["properties"]), (RootShape::Object, &json!({"q": {}})));
        assert!(cx.problems.is_empty());
    }

    #[test]
    fn a_root_reference_becomes_its_target() {
        // zod-to-json-schema's named schema: the root is a reference into `definitions`.
        let args = json!({"type": "object", "properties": {"a": {"type": "string"}, "next": {"$ref": "#/definitions/Args"}}, "required": ["a"]});
        let (out, shape, cx) = run(json!({"$ref": "#/definitions/Args", "definitions": {"Args": args}, "$schema": "s", "description": "d"}));
        assert_eq!(shape, RootShape::Object);
        assert_eq!(out, json!({
            "type": "object", "properties": {"a": {"type": "string"}, "next": {"$ref": "#/definitions/Args"}}, "required": ["a"],
            "definitions": {"Args": args}, "$schema": "s", "description": "d"
        }));
        assert_eq!(cx.changes[0].rule, "schema/root-ref");
        // A chain of references, an unresolvable one, a cycle, and `#` itself.
        let chain = json!({"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "object", "properties": {"b": {}}}}});
        let (out, _, cx) = run(chain);
        assert_eq!(out["properties"], json!({"b": {}}));
        assert_eq!(cx.changes.iter().filter(|c| c.rule == "schema/root-ref").count(), 2);
        for unresolved in [json!({"$ref": "#/$defs/Missing"}), json!({"$ref": "#"}), json!({"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}})] {
            let (out, _, _) = run(unresolved.clone());
            assert_eq!(out["$ref"], unresolved["$ref"], "{unresolved}");
        }
    }

    #[test]
    fn a_wrapped_root_keeps_its_definitions_at_the_root() {
        let (out, shape, _) = run(json!({"type": "array", "items": {"$ref": "#/$defs/X"}, "$defs": {"X": {"type": "integer"}}}));
        assert_eq!(shape, RootShape::Wrapped);
        assert_eq!(out["$defs"], json!({"X": {"type": "integer"}}));
        assert_eq!(out["properties"][WRAPPED_PROPERTY], json!({"type": "array", "items": {"$ref": "#/$defs/X"}}));
    }

    #[test]
    fn a_wrapped_root_s_references_to_itself_follow_it() {
        // `#` was the array; after wrapping it is `#/properties/input` (the wrapper is an object).
        let (out, _, _) = run(json!({
            "type": "array",
            "items": {"anyOf": [{"$ref": "#"}, {"$ref": "#/$defs/X"}, {"$ref": "#/items"}, {"enum": [{"$ref": "#"}]}]},
            "$defs": {"X": {"type": "array", "items": {"$ref": "#"}}, "Y": {"$ref": "#/definitionsX"}, "Z": {"$ref": "#/%24defs/X"}}
        }));
        assert_eq!(out["$defs"]["Z"], json!({"$ref": "#/%24defs/X"}), "a percent-encoded pointer into the definitions");
        let p = format!("#/properties/{WRAPPED_PROPERTY}");
        assert_eq!(
            out["properties"][WRAPPED_PROPERTY]["items"]["anyOf"],
            json!([{"$ref": p}, {"$ref": "#/$defs/X"}, {"$ref": format!("{p}/items")}, {"enum": [{"$ref": "#"}]}]),
            "an enum's value is data, not a reference"
        );
        assert_eq!(out["$defs"]["X"]["items"], json!({"$ref": p}), "a definition's reference to the root too");
        assert_eq!(out["$defs"]["Y"], json!({"$ref": format!("{p}/definitionsX")}), "a name that only begins like the definitions'");
    }

    #[test]
    fn object_like_without_type_gets_type_object() {
        let (out, _, cx) = run(json!({"properties":{"a":{}}}));
        assert_eq!(out["type"], "object");
        assert_eq!(cx.changes[0].rule, "schema/infer-object");
        let (out, _, _) = run(json!({}));
        assert_eq!(out, json!({"type":"object","properties":{}}));
    }

    #[test]
    fn nullable_object_root_narrows_to_object() {
        let (out, _, cx) = run(json!({"type":["object","null"],"properties":{}}));
        assert_eq!(out["type"], "object");
        assert_eq!(cx.changes[0].rule, "schema/root-type");
    }

    #[test]
    fn non_object_root_is_wrapped() {
        let (out, shape, cx) = run(json!({"type":"string","description":"a query"}));
        assert_eq!(shape, RootShape::Wrapped);
        assert_eq!(
            out,
            json!({"type":"object","properties":{"input":{"type":"string","description":"a query"}},"required":["input"]})
        );
        assert_eq!(cx.changes[0].rule, "schema/wrap-root");
        let (_, shape, _) = run(json!({"anyOf":[{"type":"string"},{"type":"object"}]}));
        assert_eq!(shape, RootShape::Wrapped);
    }

    #[test]
    fn object_combinator_root_stays_an_object() {
        let (out, shape, _) =
            run(json!({"anyOf":[{"type":"object","properties":{"a":{}}},{"properties":{"b":{}}}]}));
        assert_eq!(shape, RootShape::Object);
        assert_eq!(out["type"], "object");
    }

    #[test]
    fn required_naming_no_property_is_removed_and_reported() {
        let (out, _, cx) =
            run(json!({"type":"object","properties":{"a":{}},"required":["a","model","a",7],"additionalProperties":false}));
        assert_eq!(out["required"], json!(["a"]));
        assert_eq!(cx.changes[0].rule, "schema/required-missing-property");
        assert_eq!(cx.changes[0].path, "/required");
        assert!(cx.changes[0].message.contains("\"model\""));
    }

    /// A required property that `properties` does not declare, on an object that takes it: the
    /// server requires it all the same, so it is declared (any value, or what
    /// `additionalProperties` says) and stays required, where removing it would leave the model
    /// no way to know of it (and, strict mode closing the object, no way to give it).
    #[test]
    fn required_naming_no_property_of_an_open_object_is_declared() {
        let (out, _, cx) = run(json!({"type":"object","properties":{"q":{"type":"string"}},"required":["q","token","token",7]}));
        assert_eq!(out["properties"], json!({"q":{"type":"string"},"token":{}}));
        assert_eq!(out["required"], json!(["q","token"]));
        let rules: Vec<&str> = cx.changes.iter().map(|d| d.rule).collect();
        assert_eq!(rules, ["schema/required-undeclared", "schema/required-missing-property"]);
        assert!(cx.changes[0].message.contains("\"token\"") && cx.changes[0].message.contains("any value"));
        let (out, _, _) = run(json!({"type":"object","properties":{},"required":["k"],"additionalProperties":{"type":"integer"}}));
        assert_eq!(out["properties"], json!({"k":{"type":"integer"}}));
        assert_eq!(out["required"], json!(["k"]));
        // Names the object may refuse by their spelling are removed as before.
        let (out, _, cx) = run(json!({"type":"object","properties":{},"required":["k"],"patternProperties":{"^x":{}}}));
        assert_eq!(out["required"], json!([]));
        assert_eq!(cx.changes[0].rule, "schema/required-missing-property");
    }

    #[test]
    fn draft3_required_true_is_lifted() {
        let (out, _, cx) = run(json!({"type":"object","properties":{"a":{"type":"string","required":true}}}));
        assert_eq!(out["required"], json!(["a"]));
        assert_eq!(out["properties"]["a"], json!({"type":"string"}));
        assert_eq!(cx.changes[0].path, "/properties/a");
    }

    #[test]
    fn type_names_are_normalised() {
        // Found by the schema_convert fuzzer: {"type":"objeCt"} at the root.
        let (out, shape, cx) = run(json!({"type":"objeCt"}));
        assert_eq!(shape, RootShape::Object);
        assert_eq!(out["type"], "object");
        assert_eq!(cx.changes[0].rule, "schema/type-case");
        let mut o = json!({"type":["String","float","null"]});
        let mut cx = Cx::new(Limits::default());
        normalize_type(o.as_object_mut().unwrap(), &mut cx);
        assert_eq!(o["type"], json!(["string", "null"]));
        let mut o = json!({"type":"any"});
        normalize_type(o.as_object_mut().unwrap(), &mut cx);
        assert!(o.get("type").is_none());
    }

    #[test]
    fn malformed_properties_and_required_are_replaced() {
        let (out, _, cx) = run(json!({"type":"object","properties":[1],"required":true}));
        assert_eq!(out, json!({"type":"object","properties":{}}));
        assert_eq!(cx.changes.len(), 2);
    }
}
