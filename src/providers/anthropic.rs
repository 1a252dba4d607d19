//! Anthropic Messages (`input_schema`).
//!
//! Steps, in order:
//! 1. Root combinators merged into one `type:"object"` schema (Anthropic: "input_schema does not
//!    support oneOf, allOf, or anyOf at the top level").
//! 2. Structure fixed on every node ([`super::fix_structure`]). Everything else passes through:
//!    Anthropic accepts any draft 2020-12 schema below the root.
//! 3. Top-level property keys outside `^[a-zA-Z0-9_.-]{1,64}$`, which fail the whole request,
//!    renamed (`$top` → `dollar_top`), `required` and the rest following, arguments mapped back
//!    ([`crate::providers::keys`]); `anthropic/property-renamed`. Nested keys stay.
//!
//! Strict steps (strict tool use, when `strict` is asked for), on the renamed schema:
//! 4. `$ref`s inlined; a recursive schema falls back to non-strict, and so does one whose strict
//!    form would exceed `limits` (nesting or nodes, its references inlined).
//! 5. Every object gets `additionalProperties: false` (an open map, by `additionalProperties` or
//!    `unevaluatedProperties`, falls back to non-strict).
//! 6. `oneOf` rewritten as `anyOf` (strict mode has no `oneOf`), joined to an `anyOf` beside it;
//!    an `allOf` with object branches merged into one object (closed once, not branch by branch).
//!    OpenAPI's `nullable: true` written as a `null` type (strict mode reads JSON Schema only).
//! 7. Keywords outside Claude's strict subset (its documented list, which the Anthropic SDK's
//!    strict transform keeps too) removed and described: `minimum`, `maximum`, `multipleOf`,
//!    `minLength`, `maxLength`, `maxItems`, `minItems` above 1, formats outside the allowed list,
//!    and every keyword the subset does not list (`minProperties`, `propertyNames`,
//!    `dependentRequired`, `contentEncoding`...); annotations stay. Where the SDK's transform
//!    throws, the tool falls back: a property, items or `anyOf` branch with no type (`{}`, `true`,
//!    a description alone, a `$ref` that leads nowhere), an `enum`/`const` of objects or arrays,
//!    `false` as a subschema, a tuple (`prefixItems`) or a dynamic reference.
//! 8. Set-level limits (20 strict tools, 24 optional parameters, 16 union parameters) are checked
//!    by the converter over all tools, which falls back later tools to non-strict.
//!
//! Bedrock's strict tool use (`toolSpec.strict`, Claude models) takes the same subset, so
//! [`crate::providers::bedrock`] compiles with `compile_with` and its own rule names.

use serde_json::Value;

use crate::error::{display_path, Result};
use crate::model::{JsonObject, Keyed as _, NameSet, Put as _, Take as _};
use crate::providers::{fix_root_structure, Compiled, Relaxed, SchemaOptions};
use crate::schema::lower::{is_object_node, keyword_hint, merge_all_of, merge_root_combinators, merge_root_combinators_named, one_of_as_any_of};
use crate::schema::refs::{inline_refs_strict, report_unresolvable, Shared};
use crate::schema::walk::{self, contains_ref, for_each_subschema_mut, Keyword};
use crate::schema::{is_annotation, Cx, Notes};
use crate::text::Owned as _;

/// Formats Anthropic strict mode accepts.
pub(crate) const STRICT_FORMATS: &[&str] =
    &["date-time", "date", "time", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];

/// What Claude's strict mode does with a keyword. Its subset (`Kept`) is what it takes
/// (Anthropic, "Structured outputs", JSON Schema limitations: types, `enum` and `const` of primitives, `anyOf`, `allOf`, local `$ref`s and
/// definitions, `default`, `required`, `additionalProperties: false`, the listed formats, a
/// `pattern` without lookaround, `minItems` 0 or 1; the Anthropic SDK's `transformJSONSchema`
/// keeps the same). Annotations ([`is_annotation`]) pass as well; every other keyword is removed
/// and described, or is a reason to fall back. What it does with each: [`claude_key`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClaudeKey {
    /// In the subset (a `format`, `pattern` or `minItems` may still go, by its value).
    Kept,
    /// An annotation ([`is_annotation`]): kept.
    Annotation,
    /// In [`STRICT_UNSUPPORTED`]: removed and described.
    Unsupported,
    /// Rewritten (`oneOf`, `nullable`), a reason to fall back ([`STRICT_BLOCKERS`], and
    /// `patternProperties` on an object) or taken (`$schema`).
    Handled,
    /// Any other: removed, and described where a description carries it.
    Other,
}

/// [`ClaudeKey`] of a keyword (asked of every key of every schema): by length first, one
/// integer compare, then the few keywords of that length.
pub(crate) fn claude_key(key: &str) -> ClaudeKey {
    use ClaudeKey::{Annotation, Handled, Kept, Other, Unsupported};
    let class = match (key.len(), key) {
        (2, "if") | (3, "not") | (4, "then" | "else") => Handled,
        (3, "$id") => Annotation,
        (4, "type" | "enum" | "$ref") => Kept,
        (5, "items" | "anyOf" | "allOf" | "const") => Kept,
        (5, "title" | "$defs") => Annotation,
        (5, "oneOf") => Handled,
        (6, "format") => Kept,
        (7, "pattern") => Kept,
        (7, "default" | "example") => Annotation,
        (7, "minimum" | "maximum") => Unsupported,
        (7, "$schema") => Handled,
        (8, "required" | "minItems") => Kept,
        (8, "examples" | "$comment" | "readOnly") => Annotation,
        (8, "maxItems") => Unsupported,
        (8, "nullable" | "contains") => Handled,
        (9, "writeOnly") => Annotation,
        (9, "minLength" | "maxLength") => Unsupported,
        (10, "properties") => Kept,
        (10, "deprecated") => Annotation,
        (10, "multipleOf") => Unsupported,
        (11, "description" | "definitions") => Annotation,
        (11, "uniqueItems") => Unsupported,
        (11, "prefixItems" | "$dynamicRef") => Handled,
        (13, "$recursiveRef") => Handled,
        (16, "exclusiveMinimum" | "exclusiveMaximum") => Unsupported,
        (16, "dependentSchemas") => Handled,
        (17, "patternProperties") => Handled,
        (20, "additionalProperties") => Kept,
        _ => Other,
    };
    match class {
        Other if key.starts_with("x-") => Annotation,
        class => class,
    }
}

/// Constraints Anthropic strict mode does not support, removed and described first, in this
/// order (then the others outside [`strict_keyword`], in the node's order).
pub(crate) const STRICT_UNSUPPORTED: &[&str] =
    &["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "maxItems", "uniqueItems"];

/// Keywords outside the strict subset whose removal would change which arguments are valid in a
/// way a description cannot carry (an `if` whose condition lost a keyword applies its `then`
/// to everything; `items` beside a `prefixItems` would hold for every item): a schema with one
/// is sent without strict. So is a dynamic reference, which strict mode cannot follow.
pub(crate) const STRICT_BLOCKERS: &[&str] =
    &["not", "if", "then", "else", "dependentSchemas", "contains", "prefixItems", "$dynamicRef", "$recursiveRef"];

/// Whether a `pattern` uses what strict mode's patterns lack: lookaround (`(?=`, `(?!`, `(?<=`,
/// `(?<!`) or a backreference (`\1`..`\9`, `\k<name>`).
pub(crate) fn pattern_unsupported(p: &str) -> bool {
    let b = p.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                if matches!(b.get(i + 1), Some(b'1'..=b'9' | b'k')) {
                    return true;
                }
                i += 2;
                continue;
            }
            b'(' if b[i + 1..].starts_with(b"?=") || b[i + 1..].starts_with(b"?!") || b[i + 1..].starts_with(b"?<=") || b[i + 1..].starts_with(b"?<!") => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// Anthropic's limits on strict tools per request.
pub const MAX_STRICT_TOOLS: usize = 20;
/// Optional parameters across strict tools.
pub const MAX_STRICT_OPTIONAL: usize = 24;
/// Parameters with `anyOf` or type arrays across strict tools.
pub const MAX_STRICT_UNIONS: usize = 16;

/// The names a dialect of Claude's strict subset reports under (Anthropic's own, Bedrock's).
#[derive(Debug)]
pub(crate) struct Rules {
    /// A keyword removed and described.
    pub keyword: &'static str,
    /// `oneOf` rewritten as `anyOf`.
    pub one_of: &'static str,
    /// An `allOf` of objects merged into one object.
    pub all_of: &'static str,
    /// An object open to undeclared properties closed.
    pub close: &'static str,
    /// A schema that cannot be strict, sent without it.
    pub fallback: &'static str,
    /// A tool past the set-level limits, sent without strict.
    pub limit: &'static str,
    /// Whose limits those are, for the message.
    pub who: &'static str,
    /// A top-level property key renamed (see [`crate::providers::keys`]).
    pub property: &'static str,
    /// Who refuses such keys, for the message.
    pub provider: &'static str,
}

/// Anthropic's rule names.
pub(crate) const ANTHROPIC: Rules = Rules {
    keyword: "anthropic/strict-keyword",
    one_of: "anthropic/strict-oneof",
    all_of: "anthropic/strict-allof",
    close: "anthropic/strict-close",
    fallback: "anthropic/strict-fallback",
    limit: "anthropic/strict-limit",
    who: "Anthropic's",
    property: "anthropic/property-renamed",
    provider: "Anthropic",
};

/// Compiles for Anthropic.
pub fn compile(root: Value, opts: &SchemaOptions, cx: &mut Cx) -> Result<Compiled> {
    compile_with(root, opts, cx, &ANTHROPIC)
}

/// Compiles for Claude's JSON Schema dialect, reporting under `rules`.
pub(crate) fn compile_with(mut root: Value, opts: &SchemaOptions, cx: &mut Cx, rules: &Rules) -> Result<Compiled> {
    if let Value::Object(obj) = &mut root {
        // The note of a merged root union names the keys the model sees: renamed ones by
        // their new names, those the merged object's keys get (a trial merge tells them).
        match crate::providers::keys::merged_renames(obj, cx) {
            Some(renamed) => merge_root_combinators_named(obj, cx, &renamed),
            None => merge_root_combinators(obj, cx),
        }
    }
    fix_root_structure(&mut root, cx)?;
    cx.reset_budget();
    // Before the strict attempt: the schema sent without strict has the same keys.
    let plan = crate::providers::keys::rename_top_level(&mut root, cx, rules.property, rules.provider);
    // What is found on the renamed schema is said at the server's keys.
    let to_server_keys = |cx: &mut Cx, from: (usize, usize)| {
        crate::providers::keys::paths_to_server_keys(&mut cx.changes[from.0..], &plan.renamed);
        crate::providers::keys::paths_to_server_keys(&mut cx.problems[from.1..], &plan.renamed);
    };
    if !opts.strict {
        if contains_ref(&root, 0) {
            let from = (cx.changes.len(), cx.problems.len());
            report_unresolvable(&root, cx);
            to_server_keys(cx, from);
        }
        return Ok(Compiled { schema: Some(root), strict: None, plan, relaxed: None });
    }
    let mut scx = Cx::new(cx.limits).share_refs(cx.shares_refs());
    // `root` stays for the fallback; with references the strict schema is built anew by
    // inlining them, so only a schema without any is copied. Shared expansions are copied in
    // as `strict_node` reaches them. A recursive reference cannot be strict: the inlining stops
    // at the first one.
    let attempt = (|| {
        let inlined = match contains_ref(&root, 0) {
            true => {
                let inlined = inline_refs_strict(&root, &mut scx)?;
                // Past the expansion budget, the references cut are open objects, which strict
                // mode would close: said as the limit it is.
                if inlined.cut > 0 && inlined.schema.is_some() {
                    return Err(crate::providers::openai::over_budget(&inlined, None));
                }
                inlined.schema
            }
            false => Some(root.clone()),
        };
        let Some(mut schema) = inlined else { return Ok(Err("recursive $ref".owned())) };
        crate::providers::openai::drop_root_nullable(&mut schema, &mut scx, rules.keyword);
        Ok(strict_node(&mut schema, &mut scx, rules)?.map(|()| schema))
    })();
    // A limit met on the way is a reason to send this tool without strict too.
    let attempt = crate::providers::strict_or_why(attempt)?;
    to_server_keys(&mut scx, (0, 0));
    match attempt {
        Ok(strict_schema) => {
            let relaxed = Relaxed { schema: root, strict_changes: scx.changes.len(), strict_problems: scx.problems.len() };
            cx.changes.append(&mut scx.changes);
            cx.problems.append(&mut scx.problems);
            Ok(Compiled { schema: Some(strict_schema), strict: Some(true), plan, relaxed: Some(relaxed) })
        }
        Err(why) => {
            cx.problem(rules.fallback, format!("{why}; sent without strict"));
            if contains_ref(&root, 0) {
                let from = (cx.changes.len(), cx.problems.len());
                report_unresolvable(&root, cx);
                to_server_keys(cx, from);
            }
            Ok(Compiled { schema: Some(root), strict: None, plan, relaxed: None })
        }
    }
}

fn strict_node(node: &mut Value, cx: &mut Cx, rules: &Rules) -> Result<std::result::Result<(), String>> {
    Shared::materialize(node, cx);
    // `true` (anything) has no type for strict mode to hold to; a `false` where a subschema
    // stands is refused by [`strict_object`], which knows where it is (`additionalProperties:
    // false` is what closes an object).
    let obj = match node {
        Value::Object(o) => o,
        Value::Bool(true) => return Ok(Err(format!("a `true` schema (anything) at {}", display_path(cx.path())))),
        _ => return Ok(Ok(())),
    };
    cx.enter()?;
    let r = strict_object(obj, cx, rules);
    cx.leave();
    r
}

fn strict_object(obj: &mut JsonObject, cx: &mut Cx, rules: &Rules) -> Result<std::result::Result<(), String>> {
    // An `allOf` of objects (`allOf: [Base, {extra}]`) is one object: each branch closed by
    // itself would reject the properties of the others, and nothing would be valid. First of
    // all, so that what the branches bring (a `oneOf`, an `allOf` of their own) is rewritten too.
    for _ in 0..8 {
        if !obj.find("allOf").and_then(Value::as_array).is_some_and(|bs| bs.iter().any(|b| b.as_object().is_some_and(is_object_node))) {
            break;
        }
        // Two `title`s are a lost annotation, reported as a change (the first kept), not a reason
        // to give up strict mode.
        let (titles, conflicts): (Vec<String>, Vec<String>) = merge_all_of(obj).into_iter().partition(|k| k == "title");
        if !conflicts.is_empty() {
            return Ok(Err(format!("allOf branches disagree on {} at {}", conflicts.join(", "), display_path(cx.path()))));
        }
        cx.change(rules.all_of, "allOf of objects merged into one object (closed branch by branch, each would reject the others' properties)");
        if !titles.is_empty() {
            cx.change(rules.all_of, "allOf branches disagree on `title`; the first value is kept");
        }
    }
    // An annotation that strict validators choke on (the MCP SDKs add draft-07's to every schema).
    obj.take("$schema");
    // Where the branches of a rewritten `oneOf` (and an `anyOf` beside it) stand in the strict
    // schema, and where in the user's: a reason to fall back names the user's place, since the
    // user's schema is what is sent then.
    let base = cx.path().owned();
    let mut moved = Vec::new();
    if obj.has("oneOf") {
        if obj.find("anyOf").is_some_and(Value::is_array) {
            // Both must hold: each kept as an `anyOf`, the two under `allOf` (joining their
            // branches into one `anyOf` would let through what either one forbids).
            let pair = [obj.take("anyOf"), obj.take("oneOf")].map(|b| Value::Object(JsonObject::from_iter([("anyOf".owned(), b.unwrap_or_default())])));
            let n = match obj.find_mut("allOf") {
                Some(Value::Array(all)) => {
                    all.extend(pair);
                    all.len() - 2
                }
                _ => {
                    obj.put("allOf", Value::Array(pair.into()));
                    0
                }
            };
            for (i, key) in ["anyOf", "oneOf"].into_iter().enumerate() {
                moved.push((format!("{base}/allOf/{}/anyOf/", n + i), format!("{base}/{key}/")));
            }
            cx.change(rules.one_of, "oneOf beside anyOf: each kept as an anyOf, both under allOf (strict mode has no oneOf)");
        } else if one_of_as_any_of(obj) {
            moved.push((format!("{base}/anyOf/"), format!("{base}/oneOf/")));
            cx.change(rules.one_of, "oneOf rewritten as anyOf (strict mode has no oneOf)");
        }
    }
    Ok(strict_rewritten(obj, cx, rules)?.map_err(|why| at_users_place(why, &moved)))
}

/// `why`, a reason to fall back, with its place in the user's schema: the strict schema's
/// prefix where a rewritten `oneOf`'s branches stand (see [`strict_object`]) as the user's.
/// The place is what follows the reason's last " at ".
fn at_users_place(why: String, moved: &[(String, String)]) -> String {
    for (strict, users) in moved {
        if let Some(i) = why.rfind(&format!(" at {strict}")) {
            let start = i + " at ".len();
            return format!("{}{users}{}", &why[..start], &why[start + strict.len()..]);
        }
    }
    why
}

/// [`strict_object`] after its `allOf` merge and `oneOf` rewrite.
fn strict_rewritten(obj: &mut JsonObject, cx: &mut Cx, rules: &Rules) -> Result<std::result::Result<(), String>> {
    if let Some(key) = STRICT_BLOCKERS.iter().find(|k| obj.has(k)) {
        return Ok(Err(format!("`{key}` at {}", display_path(cx.path()))));
    }
    if let Some(reason) = crate::providers::openai::dependent_schemas(obj, cx.path()) {
        return Ok(Err(reason));
    }
    if crate::providers::openai::openapi_nullable(obj) {
        cx.change(rules.keyword, "`nullable: true` (OpenAPI) is not read in strict mode; written as a `null` type");
    }
    if is_object_node(obj) {
        // Open by omission: closed, below (and said); one that says `true` means its undeclared
        // properties, and falls back, as an open map of a value schema does.
        match obj.find("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(_) => return Ok(Err(format!("an open map (additionalProperties) at {}", display_path(cx.path())))),
        }
        if let Some(reason) = crate::providers::openai::open_by_unevaluated(obj, cx.path()) {
            return Ok(Err(reason));
        }
        if obj.has("patternProperties") {
            return Ok(Err(format!("patternProperties at {}", display_path(cx.path()))));
        }
        if let Some(why) = branches_outside(obj) {
            return Ok(Err(format!("{why} at {}", display_path(cx.path()))));
        }
        if let Some(reason) = crate::providers::openai::free_form_object(obj, cx.path()) {
            return Ok(Err(reason));
        }
        crate::providers::openai::close(obj, cx, rules.close, crate::providers::openai::closed_by_unevaluated(obj));
    }
    let mut drop = Vec::new();
    for key in STRICT_UNSUPPORTED {
        if obj.has(key) {
            drop.push((*key).owned());
        }
    }
    if obj.find("minItems").is_some_and(|m| !matches!(m.as_number().and_then(crate::model::integral_u64), Some(0 | 1))) {
        drop.push("minItems".owned());
    }
    if obj.find("format").and_then(Value::as_str).is_some_and(|f| !STRICT_FORMATS.contains(&f)) {
        drop.push("format".owned());
    }
    if obj.find("pattern").and_then(Value::as_str).is_some_and(pattern_unsupported) {
        drop.push("pattern".owned());
    }
    let listed = drop.len();
    for key in obj.keys() {
        if matches!(claude_key(key), ClaudeKey::Other | ClaudeKey::Handled) {
            drop.push(key.clone());
        }
    }
    let mut notes = Notes::default();
    for (i, key) in drop.into_iter().enumerate() {
        if let Some(v) = obj.remove(&key) {
            // `uniqueItems: false` allows what its absence does: nothing to say.
            if key == "uniqueItems" && v == Value::Bool(false) {
                continue;
            }
            let hint = match keyword_hint(&key, &v) {
                Some(hint) => hint,
                None if i < listed => key.clone(),
                // Nothing a description would say (`unevaluatedProperties: false` beside the
                // closing, an `$anchor`).
                None => {
                    cx.change(rules.keyword, format!("`{key}` is not supported in strict mode; removed"));
                    continue;
                }
            };
            notes.add(obj, &format!("({hint})"));
            cx.change(rules.keyword, format!("`{key}` is not supported in strict mode; removed and described ({hint})"));
        }
    }
    notes.write(obj);
    if let Some((why, at)) = outside_strict_values(obj) {
        let at = format!("{}{at}", cx.path());
        return Ok(Err(format!("{why} at {}", display_path(&at))));
    }
    let mut failure = None;
    for_each_subschema_mut(obj, cx, &mut |sub, cx| {
        if failure.is_none() {
            if let Err(reason) = strict_node(sub, cx, rules)? {
                failure = Some(reason);
            }
        }
        Ok(())
    })?;
    if failure.is_none() {
        if let Some(at) = untyped_part(obj) {
            failure = Some(format!("a schema without a type at {}{at}", cx.path()));
        }
    }
    Ok(failure.map_or(Ok(()), Err))
}

/// Why what is left of a node after the unsupported keywords went cannot be strict, if it
/// cannot (the Anthropic SDK's strict transform throws for each), and where below the node: an
/// `enum` or `const` of objects or arrays (strict mode takes primitives), or `false` where a
/// subschema stands (nothing valid), at that subschema.
fn outside_strict_values(obj: &JsonObject) -> Option<(&'static str, String)> {
    if obj.find("enum").and_then(Value::as_array).is_some_and(|e| e.iter().any(|v| v.is_object() || v.is_array())) {
        return Some(("an enum of objects or arrays", String::new()));
    }
    if obj.find("const").is_some_and(|c| c.is_object() || c.is_array()) {
        return Some(("a const object or array", String::new()));
    }
    let nothing = |v: &Value| matches!(v, Value::Bool(false));
    let mut at = None;
    if let Some(Value::Object(props)) = obj.find("properties") {
        if let Some(name) = props.iter().find(|(_, p)| nothing(p)).map(|(name, _)| name) {
            let mut p = "/properties".owned();
            crate::text::push_pointer_token(&mut p, name);
            at = Some(p);
        }
    }
    if at.is_none() && obj.find("items").is_some_and(nothing) {
        at = Some("/items".owned());
    }
    for key in ["anyOf", "allOf"] {
        if at.is_none() {
            at = obj.find(key).and_then(Value::as_array).and_then(|a| a.iter().position(nothing)).map(|i| format!("/{key}/{i}"));
        }
    }
    at.map(|at| ("a `false` schema (nothing valid)", at))
}

/// Where a property, the items or an `anyOf` branch of this node (made strict) is nothing but
/// annotations, if one is: any value (`{}`, a description, what is left of a `$ref` that leads
/// nowhere), with no type for strict mode to hold to (the Anthropic SDK's strict transform
/// throws for it). A branch of an `allOf` so is no choice (the others say the type), and a
/// branch that only requires properties (`anyOf: [{required: [a]}, ..]`) has its object's.
fn untyped_part(obj: &JsonObject) -> Option<String> {
    let untyped = |v: &Value| v.as_object().is_some_and(|o| o.keys().all(|k| is_annotation(k)));
    if let Some(Value::Object(props)) = obj.find("properties") {
        if let Some(name) = props.iter().find(|(_, p)| untyped(p)).map(|(name, _)| name) {
            let mut at = "/properties".owned();
            crate::text::push_pointer_token(&mut at, name);
            return Some(at);
        }
    }
    if obj.find("items").is_some_and(untyped) {
        return Some("/items".owned());
    }
    let branch = obj.find("anyOf").and_then(Value::as_array).and_then(|bs| bs.iter().position(untyped));
    branch.map(|i| format!("/anyOf/{i}"))
}

/// Why closing this object node (`additionalProperties: false`) would reject what its
/// combinators ask for, if it would: a branch that is an object itself (closed in turn, it would
/// reject the node's other properties), or one that requires a property the node does not
/// declare; also in the combinators of those branches (an `allOf` of `anyOf`s). Nothing could
/// satisfy the strict schema then.
fn branches_outside(obj: &JsonObject) -> Option<String> {
    fn within(node: &JsonObject, declared: Option<&JsonObject>, depth: usize) -> Option<String> {
        for key in ["anyOf", "oneOf", "allOf"] {
            let Some(Value::Array(branches)) = node.find(key) else { continue };
            for b in branches.iter().filter_map(Value::as_object) {
                if is_object_node(b) {
                    return Some(format!("object branches of `{key}` under an object"));
                }
                let mut required = b.find("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str);
                if let Some(name) = required.find(|n| !declared.is_some_and(|d| d.contains_key(*n))) {
                    return Some(format!("`{key}` requiring \"{name}\", which the object does not declare,"));
                }
                if depth < 8 {
                    if let Some(why) = within(b, declared, depth + 1) {
                        return Some(why);
                    }
                }
            }
        }
        None
    }
    let declared = match obj.find("properties") {
        Some(Value::Object(p)) => Some(p),
        _ => None,
    };
    within(obj, declared, 0)
}

/// Counts what Anthropic's strict limits count: (optional parameters, union parameters), at every
/// subschema (`$defs`, `not`, tuples and the rest, 64 levels deep): all of it is compiled into
/// the request's grammar, so a count that left some out could send a set past the limits.
pub fn strict_costs(schema: &Value) -> (usize, usize) {
    fn walk(v: &Value, depth: usize, acc: &mut (usize, usize)) {
        let Value::Object(o) = v else { return };
        if depth > 64 {
            return;
        }
        if let Some(Value::Object(props)) = o.find("properties") {
            let req = NameSet::of(o.find("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str));
            for (name, p) in props {
                if !req.contains(name) {
                    acc.0 += 1;
                }
                if p.find("anyOf").is_some() || p.find("type").is_some_and(Value::is_array) {
                    acc.1 += 1;
                }
            }
        }
        for (key, sub) in o {
            match (walk::keyword(key), sub) {
                (Keyword::Map, Value::Object(map)) => map.values().for_each(|s| walk(s, depth + 1, acc)),
                (Keyword::Array | Keyword::Items, Value::Array(subs)) => subs.iter().for_each(|s| walk(s, depth + 1, acc)),
                (Keyword::Single | Keyword::Items, Value::Object(_)) => walk(sub, depth + 1, acc),
                _ => {}
            }
        }
    }
    let mut acc = (0, 0);
    walk(schema, 0, &mut acc);
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{process_json_schema, Limits};
    use serde_json::json;

    fn run(schema: Value, strict: bool) -> (Compiled, Cx) {
        let mut cx = Cx::new(Limits::default());
        let (root, _) = process_json_schema(&schema, &mut cx);
        let opts = SchemaOptions { strict, ..SchemaOptions::default() };
        (compile(root, &opts, &mut cx).unwrap(), cx)
    }

    /// A root union merged into one object, its keys renamed: the note the model reads names
    /// them as it sees them (`dollar_a`), where it named the server's (`$a`).
    #[test]
    fn a_merged_unions_note_names_the_renamed_keys() {
        let (c, _) = run(
            json!({"oneOf": [
                {"type": "object", "properties": {"$kind": {"const": "a"}, "$a": {"type": "string"}, "dollar_a": {"type": "string"}}, "required": ["$a"]},
                {"type": "object", "properties": {"$kind": {"const": "b"}, "$b": {"type": "string"}, "ok": {}}}
            ]}),
            false,
        );
        let s = c.schema.unwrap();
        let keys: Vec<&String> = s["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["dollar_kind", "dollar_a_2", "dollar_a", "dollar_b", "ok"]);
        assert_eq!(
            s["description"],
            "Arguments must match exactly one of: (1) dollar_kind = \"a\": requires dollar_a_2; (2) dollar_kind = \"b\": properties dollar_kind, dollar_b, ok."
        );
        assert_eq!(c.plan.apply(json!({"dollar_kind": "a", "dollar_a_2": "x"})), json!({"$kind": "a", "$a": "x"}));
    }

    /// What strict mode finds under a renamed root key is said at the server's key, also where
    /// another property has the renamed key's new name (pE F1).
    #[test]
    fn diagnostics_under_a_renamed_key_point_into_the_input_schema() {
        let (c, cx) = run(
            json!({"type": "object", "properties": {
                "$top": {"type": "object", "properties": {"c": {"type": "string", "minLength": 2}}},
                "dollar_top": {"type": "string", "minLength": 1},
                "a/b": {"type": "string", "format": "email"}}}),
            true,
        );
        assert_eq!(c.strict, Some(true), "{:?}", cx.problems);
        let paths: Vec<(&str, &str)> = cx.changes.iter().map(|d| (d.rule, d.path.as_str())).collect();
        assert!(paths.contains(&("anthropic/strict-close", "/properties/$top")), "{paths:?}");
        assert!(paths.contains(&("anthropic/strict-keyword", "/properties/$top/properties/c")), "{paths:?}");
        assert!(paths.contains(&("anthropic/strict-keyword", "/properties/dollar_top")), "{paths:?}");
        assert!(paths.contains(&("anthropic/property-renamed", "/properties/a~1b")), "{paths:?}");
        assert!(!paths.iter().any(|(_, p)| p.contains("dollar_top_2") || p.contains("a_b")), "{paths:?}");
    }

    /// The reviewer's three shapes, whose notes still named the server's keys: a root with an
    /// `anyOf` and a `oneOf` (the second's note), an `anyOf` a root `allOf` brings up, and a
    /// branch's other keywords (`not`, `dependentRequired`), shown as written.
    #[test]
    fn every_merged_unions_note_names_the_renamed_keys() {
        let note = |schema: Value| {
            let (c, _) = run(schema, false);
            c.schema.unwrap()["description"].as_str().unwrap().to_owned()
        };
        let two = note(json!({"type": "object", "properties": {"x": {"type": "string"}},
            "anyOf": [{"required": ["x"]}, {"properties": {"y": {"type": "string"}}, "required": ["y"]}],
            "oneOf": [{"properties": {"$a": {"type": "string"}}, "required": ["$a"]}, {"properties": {"$b": {"type": "string"}}, "required": ["$b"]}]}));
        assert_eq!(two, "Arguments must match at least one of: (1) requires x; (2) requires y. Arguments must match exactly one of: (1) requires dollar_a; (2) requires dollar_b.");
        let lifted = note(json!({"type": "object",
            "allOf": [{"anyOf": [{"properties": {"$a": {"type": "string"}}, "required": ["$a"]}, {"properties": {"b": {"type": "string"}}, "required": ["b"]}]}]}));
        assert_eq!(lifted, "Arguments must match at least one of: (1) requires dollar_a; (2) requires b.");
        let extras = note(json!({"type": "object",
            "properties": {"$a": {"type": "string"}, "$b": {"type": "string"}, "$c": {"type": "string"}},
            "oneOf": [{"required": ["$a"], "not": {"required": ["$b"]}, "dependentRequired": {"$a": ["$c"]}, "if": {"properties": {"$c": {"$ref": "#/properties/$a"}}}}, {"required": ["$b"]}]}));
        assert_eq!(
            extras,
            "Arguments must match exactly one of: (1) requires dollar_a (not: {\"required\":[\"dollar_b\"]}; dependentRequired: {\"dollar_a\":[\"dollar_c\"]}; if: {\"properties\":{\"dollar_c\":{\"$ref\":\"#/properties/dollar_a\"}}}); (2) requires dollar_b."
        );
    }

    /// A branch's `patternProperties` and `propertyNames` in a merged union's note hold for the
    /// renamed keys as they held for the server's: the note does not tell the model that
    /// `dollar_f`, which it sends, is refused, nor bind a key it never sees alone.
    #[test]
    fn a_merged_unions_note_shows_key_tests_for_the_renamed_keys() {
        let (c, _) = run(
            json!({"type": "object", "properties": {"$f": {"type": "string"}, "a": {"type": "string"}},
                "anyOf": [{"patternProperties": {"^\\$f$": {"minLength": 2}}}, {"propertyNames": {"enum": ["$f", "a"]}, "required": ["a"]}]}),
            false,
        );
        let note = c.schema.unwrap()["description"].as_str().unwrap().to_owned();
        assert!(note.contains(r#"properties: {"dollar_f":{"minLength":2}}"#), "{note}");
        assert!(note.contains(r#"propertyNames: {"anyOf":[{"enum":["dollar_f"]},{"enum":["$f","a"]}]}"#), "{note}");
    }

    /// An `allOf` of objects (inheritance by `$ref`) is one object under strict: closed once,
    /// not branch by branch (each branch closed would reject the other's properties).
    #[test]
    fn strict_merges_an_all_of_of_objects() {
        let (c, cx) = run(
            json!({"type":"object","properties":{"item":{"allOf":[{"$ref":"#/$defs/Base"},{"type":"object","properties":{"extra":{"type":"string"}},"required":["extra"]}]}},
                   "required":["item"],"$defs":{"Base":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}}}),
            true,
        );
        assert_eq!(c.strict, Some(true), "{:?}", cx.problems);
        let item = &c.schema.unwrap()["properties"]["item"];
        assert!(item.get("allOf").is_none(), "{item}");
        assert_eq!(item["properties"], json!({"id":{"type":"integer"},"extra":{"type":"string"}}));
        assert_eq!(item["required"], json!(["id", "extra"]));
        assert_eq!(item["additionalProperties"], json!(false));
        assert!(cx.changes.iter().any(|d| d.rule == "anthropic/strict-allof"), "{:?}", cx.changes);
        // Bounds both branches set combine (the stricter holds), as a `$ref`'s siblings do; the
        // bound is then outside the strict subset, and described.
        let (c, cx) = run(json!({"type":"object","properties":{"i":{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"minProperties":1},{"type":"object","minProperties":2}]}}}), true);
        assert_eq!(c.strict, Some(true), "{:?}", cx.problems);
        let i = &c.schema.unwrap()["properties"]["i"];
        assert_eq!(i["description"], json!("(at least 2 properties)"), "{i}");
        // Branches that disagree (two patterns no one keyword says): not strict, and said so.
        let (c, cx) = run(json!({"type":"object","properties":{"i":{"allOf":[{"type":"object","propertyNames":{"pattern":"^a"}},{"type":"object","propertyNames":{"pattern":"^b"}}]}}}), true);
        assert_eq!(c.strict, None);
        assert!(cx.problems.iter().any(|d| d.rule == "anthropic/strict-fallback" && d.message.contains("allOf")), "{:?}", cx.problems);
    }

    #[test]
    fn root_any_of_is_lowered() {
        // https://github.com/anthropics/claude-code/issues/5973
        let (c, _) = run(json!({"type":"object","properties":{"a":{},"b":{}},"anyOf":[{"required":["a"]},{"required":["b"]}]}), false);
        let s = c.schema.unwrap();
        assert!(s.get("anyOf").is_none());
        assert_eq!(s["type"], "object");
    }

    #[test]
    fn nested_constructs_pass_through() {
        let input = json!({"type":"object","properties":{"u":{"type":"string","format":"uri"},"m":{"type":"object","additionalProperties":{"type":"string"},"properties":{}},"x":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":[]});
        let (c, _) = run(input.clone(), false);
        assert_eq!(c.schema.unwrap(), input);
    }

    #[test]
    fn strict_removes_unsupported_and_closes_objects() {
        let (c, _) = run(json!({"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":5}},"required":["n"]}), true);
        let s = c.schema.unwrap();
        assert_eq!(c.strict, Some(true));
        assert_eq!(s["additionalProperties"], false);
        assert!(s["properties"]["n"].get("minimum").is_none());
        assert!(s["properties"]["n"]["description"].as_str().unwrap().contains("minimum: 1"));
    }

    /// Claude strict decides from what its subset takes (s25e F1): keywords outside it are
    /// removed and described where a description carries them, each reported; annotations stay.
    #[test]
    fn strict_keeps_only_the_claude_subset() {
        let (c, cx) = run(
            json!({"type":"object","required":["o","s"],"properties":{
                "o":{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"string"}},"minProperties":1,"maxProperties":1,
                     "propertyNames":{"pattern":"^[a-z]$"},"dependentRequired":{"x":["y"]},"unevaluatedProperties":false,"unevaluatedItems":false},
                "s":{"type":"string","contentEncoding":"base64","contentMediaType":"image/png","examples":["aGk="],"x-note":1,"$anchor":"s"}}}),
            true,
        );
        assert_eq!(c.strict, Some(true), "{:?}", cx.problems);
        let s = c.schema.unwrap();
        let o = s["properties"]["o"].as_object().unwrap();
        let keys: Vec<&str> = o.keys().map(String::as_str).collect();
        assert_eq!(keys, ["type", "properties", "additionalProperties", "description"], "{o:?}");
        assert_eq!(
            o["description"],
            "(at least 1 property) (at most 1 property) (property names must match ^[a-z]$) (dependentRequired: {\"x\":[\"y\"]})"
        );
        let st = s["properties"]["s"].as_object().unwrap();
        assert_eq!(st["description"], "(contentEncoding: \"base64\") (contentMediaType: \"image/png\")");
        assert_eq!((st.get("examples"), st.get("x-note"), st.get("$anchor")), (Some(&json!(["aGk="])), Some(&json!(1)), None));
        let said: Vec<(&str, &str)> = cx.changes.iter().filter(|d| d.rule == "anthropic/strict-keyword").map(|d| (d.path.as_str(), d.message.split('`').nth(1).unwrap())).collect();
        assert_eq!(
            said,
            [
                ("/properties/o", "minProperties"),
                ("/properties/o", "maxProperties"),
                ("/properties/o", "propertyNames"),
                ("/properties/o", "dependentRequired"),
                ("/properties/o", "unevaluatedProperties"),
                ("/properties/o", "unevaluatedItems"),
                ("/properties/s", "contentEncoding"),
                ("/properties/s", "contentMediaType"),
                ("/properties/s", "$anchor"),
            ]
        );
    }

    /// Draft 7's `dependencies` follows renamed keys as `dependentRequired` and
    /// `dependentSchemas` do (its names' lists and schemas both), and under strict its schema
    /// form falls back as `dependentSchemas` does, its lists removed and described (s25e F2).
    #[test]
    fn draft7_dependencies_follow_renamed_keys_and_strict() {
        let schema = json!({"type":"object","properties":{"$top":{"type":"string"},"$skip":{"type":"string"},"q":{"type":"string"}},
            "dependencies":{"$skip":["q","$top"],"q":{"required":["$top"]}}});
        let (c, _) = run(schema, false);
        assert_eq!(c.schema.unwrap()["dependencies"], json!({"dollar_skip":["q","dollar_top"],"q":{"required":["dollar_top"]}}));
        let (c, cx) = run(json!({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"dependencies":{"a":{"required":["b"]}}}), true);
        assert_eq!(c.strict, None);
        assert!(cx.problems.iter().any(|d| d.rule == "anthropic/strict-fallback" && d.message.contains("`dependencies` with a schema")), "{:?}", cx.problems);
        let (c, cx) = run(json!({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"dependencies":{"a":["b"]}}), true);
        assert_eq!(c.strict, Some(true), "{:?}", cx.problems);
        assert!(cx.changes.iter().any(|d| d.rule == "anthropic/strict-keyword" && d.message.starts_with("`dependencies`")), "{:?}", cx.changes);
        let (c, cx) = {
            let mut cx = Cx::new(Limits::default());
            let (root, _) = process_json_schema(&json!({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"dependencies":{"a":{"required":["b"]}}}), &mut cx);
            let opts = SchemaOptions { strict: true, ..SchemaOptions::default() };
            (crate::providers::openai::compile(root, &opts, &mut cx).unwrap(), cx)
        };
        assert_eq!(c.strict, Some(false));
        assert!(cx.problems.iter().any(|d| d.rule == "openai/strict-fallback" && d.message.contains("`dependencies` with a schema")), "{:?}", cx.problems);
    }

    /// The one `match` of [`claude_key`] agrees with the lists it stands for.
    #[test]
    fn claude_key_agrees_with_the_lists() {
        for k in STRICT_UNSUPPORTED {
            assert_eq!(claude_key(k), ClaudeKey::Unsupported, "{k}");
        }
        for k in STRICT_BLOCKERS.iter().chain(&["oneOf", "nullable", "$schema", "patternProperties"]) {
            assert_eq!(claude_key(k), ClaudeKey::Handled, "{k}");
        }
        for k in ["$id", "$comment", "title", "description", "examples", "example", "default", "deprecated", "readOnly", "writeOnly", "$defs", "definitions", "x-a"] {
            assert!(is_annotation(k));
            assert_eq!(claude_key(k), ClaudeKey::Annotation, "{k}");
        }
        for k in ["type", "properties", "required", "additionalProperties", "items", "anyOf", "allOf", "enum", "const", "format", "pattern", "minItems", "$ref"] {
            assert_eq!(claude_key(k), ClaudeKey::Kept, "{k}");
        }
        for k in ["minProperties", "propertyNames", "dependentRequired", "dependencies", "unevaluatedProperties", "contentEncoding", "$anchor", "x", ""] {
            assert_eq!(claude_key(k), ClaudeKey::Other, "{k}");
        }
    }

    /// Where the SDK's strict transform throws (nothing to hold a value to, an enum of objects)
    /// and where removing a keyword would change what is valid (a tuple), the tool falls back,
    /// and the report says why (s25e F1).
    #[test]
    fn strict_falls_back_outside_the_claude_subset() {
        for (a, why) in [
            (json!({"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}), "`prefixItems` at /properties/a"),
            (json!({"enum":[{"k":1},[1,2]]}), "an enum of objects or arrays at /properties/a"),
            (json!({"const":{"k":1}}), "a const object or array at /properties/a"),
            (json!({}), "a schema without a type at /properties/a"),
            (json!({"description":"any JSON"}), "a schema without a type at /properties/a"),
            (json!(true), "a `true` schema (anything) at /properties/a"),
            (json!({"type":"array","items":{"description":"any"}}), "a schema without a type at /properties/a/items"),
            // Where the `false` is, not the node that holds it (s29f F4).
            (json!({"anyOf":[{"type":"string"},false]}), "a `false` schema (nothing valid) at /properties/a/anyOf/1)"),
            (json!({"type":"object","properties":{"ok":{"type":"string"},"gone":false}}), "a `false` schema (nothing valid) at /properties/a/properties/gone)"),
            (json!({"type":"array","items":false}), "a `false` schema (nothing valid) at /properties/a/items)"),
            // At the user's `oneOf` (and `anyOf` beside it), not the `anyOf` it becomes in the
            // strict schema, which is not sent (s29r3 F1), also below such a branch.
            (json!({"oneOf":[{"type":"string"},false]}), "a `false` schema (nothing valid) at /properties/a/oneOf/1)"),
            (json!({"anyOf":[{"type":"string"}],"oneOf":[{"type":"string"},false]}), "a `false` schema (nothing valid) at /properties/a/oneOf/1)"),
            (json!({"anyOf":[{"type":"string"},false],"oneOf":[{"type":"string"}]}), "a `false` schema (nothing valid) at /properties/a/anyOf/1)"),
            (
                json!({"allOf":[{"minLength":1}],"anyOf":[{"type":"string"}],"oneOf":[{"type":"string"},{"type":"array","items":false}]}),
                "a `false` schema (nothing valid) at /properties/a/oneOf/1/items)",
            ),
            (json!({"oneOf":[{"type":"string"},{"oneOf":[{"type":"integer"},{}]}]}), "a schema without a type at /properties/a/oneOf/1/oneOf/1"),
            (json!({"$ref":"#/$defs/Missing"}), "a schema without a type at /properties/a"),
            (json!({"$dynamicRef":"#node"}), "`$dynamicRef` at /properties/a"),
            (json!({"type":"array","items":{"$recursiveRef":"#"}}), "`$recursiveRef` at /properties/a/items"),
        ] {
            let (c, cx) = run(json!({"type":"object","properties":{"a":a.clone()},"required":["a"]}), true);
            assert_eq!(c.strict, None, "{a}");
            let fallback: Vec<&str> = cx.problems.iter().filter(|d| d.rule == "anthropic/strict-fallback").map(|d| d.message.as_str()).collect();
            assert!(fallback.len() == 1 && fallback[0].contains(why), "{a}: {fallback:?}");
        }
        // Primitive values, and a branch that only requires a declared property, are strict.
        let (c, cx) = run(
            json!({"type":"object","properties":{"e":{"enum":["a",1,null,true]},"c":{"const":2},"p":{"type":"string"}},"anyOf":[{"required":["p"]},{"required":["e"]}]}),
            true,
        );
        assert_eq!(c.strict, Some(true), "{:?}", cx.problems);
    }

    /// A `false` property of the root is named where it is, not as "the root" that holds it
    /// (s29f F4), and a `false` branch of a `oneOf` at the `oneOf` (s29r3 F1), for Bedrock's
    /// Claude too.
    #[test]
    fn strict_fallback_names_where_a_false_schema_is() {
        use crate::convert::{convert, ConvertOptions};
        use crate::providers::Provider;
        for (schema, at) in [
            (json!({"type":"object","properties":{"ok":{"type":"string"},"gone":false}}), "/properties/gone"),
            (json!({"type":"object","properties":{"a":{"oneOf":[{"type":"string"},false]}}}), "/properties/a/oneOf/1"),
        ] {
            let tools = json!([{"name":"t","inputSchema":schema}]);
            for provider in [Provider::Anthropic, Provider::Bedrock] {
                let mut opts = ConvertOptions::default();
                opts.schema.strict = true;
                let conv = convert(tools.clone(), provider, &opts).unwrap();
                let fallback: Vec<&str> = conv.report.tools[0].problems.iter().filter(|d| d.rule.ends_with("/strict-fallback")).map(|d| d.message.as_str()).collect();
                assert_eq!(fallback.len(), 1, "{provider:?}: {fallback:?}");
                assert!(fallback[0].contains(&format!("(a `false` schema (nothing valid) at {at})")), "{provider:?}: {fallback:?}");
            }
        }
    }

    #[test]
    fn strict_falls_back_for_open_maps() {
        let (c, cx) = run(json!({"type":"object","properties":{"m":{"type":"object","additionalProperties":true}}}), true);
        assert_eq!(c.strict, None);
        assert_eq!(cx.problems[0].rule, "anthropic/strict-fallback");
    }

    #[test]
    fn strict_one_of_beside_any_of_keeps_both() {
        let (c, cx) = run(json!({"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"type":"null"}],"oneOf":[{"type":"string","minLength":1},{"type":"null"}]}}}), true);
        assert_eq!(c.strict, Some(true));
        let x = &c.schema.unwrap()["properties"]["x"];
        assert!(x.get("anyOf").is_none() && x.get("oneOf").is_none());
        assert_eq!(x["allOf"][0], json!({"anyOf":[{"type":"string"},{"type":"null"}]}));
        assert_eq!(x["allOf"][1]["anyOf"][1], json!({"type":"null"}));
        assert!(cx.changes.iter().any(|d| d.rule == "anthropic/strict-oneof" && d.message.contains("allOf")));
    }

    #[test]
    fn strict_falls_back_where_branches_cannot_fit_the_closed_object() {
        // A branch that is an object, or that requires an undeclared property: the closed
        // object would reject every value the branches allow.
        for schema in [
            json!({"type":"object","properties":{"s":{"type":"object","properties":{"kind":{"type":"string"}},"required":["kind"],
                "oneOf":[{"properties":{"r":{"type":"number"}},"required":["r"]},{"properties":{"w":{"type":"number"}},"required":["w"]}]}}}),
            json!({"type":"object","properties":{"s":{"type":"object","properties":{"a":{}},"anyOf":[{"required":["a"]},{"required":["b"]}]}}}),
            json!({"type":"object","properties":{"s":{"type":"object","properties":{"a":{}},"allOf":[{"anyOf":[{"required":["z"]}]}]}}}),
        ] {
            let (c, cx) = run(schema.clone(), true);
            assert_eq!(c.strict, None, "{schema}");
            assert!(cx.problems.iter().any(|d| d.rule == "anthropic/strict-fallback" && d.message.contains("/properties/s")), "{schema}: {:?}", cx.problems);
        }
        // Branches that only require declared properties fit: strict.
        let (c, _) = run(json!({"type":"object","properties":{"s":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}}}), true);
        assert_eq!(c.strict, Some(true));
        assert_eq!(c.schema.unwrap()["properties"]["s"]["additionalProperties"], false);
    }

    #[test]
    fn costs_count_optionals_and_unions() {
        let s = json!({"type":"object","properties":{"a":{"type":["string","null"]},"b":{"anyOf":[{},{}]},"c":{}},"required":["c"]});
        assert_eq!(strict_costs(&s), (2, 2));
        // Definitions, `not` and tuple items are compiled too: their properties count.
        let s = json!({"type":"object","properties":{"t":{"type":"array","items":[{"type":"object","properties":{"u":{}}}]},"n":{"not":{"type":"object","properties":{"v":{}}}}},
                       "$defs":{"D":{"type":"object","properties":{"w":{"type":["string","null"]}}}},"required":["t","n"]});
        assert_eq!(strict_costs(&s), (3, 1));
    }

    /// Thousands of properties with a long `required` are counted in linear time: each name is
    /// looked up in a set of the required ones, where scanning the list for each took 16 times
    /// the work for 4 times the properties. The counts are as before, short list or long.
    #[test]
    fn costs_of_many_required_properties_are_counted_in_linear_time() {
        let schema = |n: usize| {
            let props: serde_json::Map<String, Value> = (0..n).map(|i| (format!("p{i}"), if i % 3 == 0 { json!({"type": ["string", "null"]}) } else { json!({}) })).collect();
            let mut required: Vec<Value> = (0..n).rev().filter(|i| i % 2 == 0).map(|i| json!(format!("p{i}"))).collect();
            required.extend([json!("p0"), json!(7), json!("absent")]);
            json!({"type": "object", "properties": props, "required": required})
        };
        let steps = |n: usize| {
            let s = schema(n);
            let before = crate::model::NAME_STEPS.with(|s| s.get());
            assert_eq!(strict_costs(&s), (n / 2, n.div_ceil(3)), "{n}");
            crate::model::NAME_STEPS.with(|s| s.get()) - before
        };
        let (small, large) = (steps(2_000), steps(8_000));
        assert!(large <= 5 * small, "{small} then {large} steps for 4 times the properties");
        for n in [3, crate::model::NameSet::FEW, crate::model::NameSet::FEW + 1, 40] {
            steps(n);
        }
    }
}
