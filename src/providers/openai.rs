//! OpenAI Chat Completions and Responses (`parameters`).
//!
//! Non-strict steps, in order:
//! 1. Root combinators (`anyOf`/`oneOf`/`allOf`) merged into one object; a root `enum` or `not`
//!    removed (OpenAI: "schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level").
//! 2. Structure fixed on every node ([`super::fix_structure`]): property values are schemas, objects
//!    have `properties`, `required` names existing properties, arrays have `items`.
//!
//! Strict steps (Structured Outputs, when `strict` is asked for), on top of the above:
//! 3. `$ref`s inlined; a recursive schema instead keeps its references, all pointing into one
//!    root `$defs` table (`#` for the root), each definition made strict once.
//! 4. Every node: `allOf` merged; `oneOf` → `anyOf`; OpenAPI's `nullable: true` written as a
//!    `null` type; keywords outside the strict subset removed, their meaning folded into the
//!    description; formats outside the allowed list removed.
//! 5. Every object: `additionalProperties: false`; every property required, the optional ones
//!    widened to nullable (a `null` from the model is removed again by `prepareArguments`; an
//!    enum of 250 values or more gets it as an `anyOf` branch beside it, not as an enum value).
//!    An object's own properties beside an `anyOf` of object branches go into each branch
//!    (closed, a branch would refuse them). A `type` beside an `anyOf` whose branches are typed
//!    within it goes (SDKs refuse the two together), and with an object's, its empty
//!    `properties` and what closed them.
//! 6. Limits checked (5,000 properties, 10 levels, 1,000 enum values, 120,000 characters).
//!
//! A tool that cannot be made strict without changing its meaning (open maps, `not`,
//! conditionals, a `$ref` with constraining siblings in a recursion, an untyped node, limits),
//! or whose strict form would exceed `limits` (nesting or nodes, its references inlined), falls
//! back to non-strict, and the report says why; the other tools are converted as ever.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::args::{ambiguous_branches, ArgPlan, Fit};
use crate::error::{display_path, Result};
use crate::model::{object, string, JsonObject, Keyed as _, NameSet, Put as _, Take as _};
use crate::providers::{fix_root_structure, Compiled, SchemaOptions};
use crate::schema::lower::{keyword_hint, merge_all_of, merge_root_combinators, one_of_as_any_of, types_of};
use crate::schema::refs::{inline_refs_strict, lookup, report_unresolvable, Chains, Shared, StrictInlining};
use crate::schema::walk::{contains_ref, for_each_subschema_mut, slot, Slot};
use crate::schema::{append_description, is_annotation, Cx, Notes};
use crate::text::Owned as _;

/// Formats OpenAI strict mode accepts (`'uri' is not a valid format`, posit-dev/chatlas#255).
pub(crate) const STRICT_FORMATS: &[&str] = &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/// The size of an enum from which an optional property's `null` is written as an `anyOf` branch
/// beside it, not added to it: 250 values, where a 251st would make it a large enum (15,000
/// characters at most), and short of the 1,000 values a schema may hold.
pub(crate) const NULL_BESIDE_ENUM: usize = 250;

/// Keywords OpenAI strict mode accepts.
pub(crate) const STRICT_KEYWORDS: &[&str] = &[
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const", "description",
    "title", "pattern", "format", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "minItems", "maxItems",
];

/// Keywords whose removal would change which arguments are valid in a way a description cannot
/// carry: strict mode gives up on them.
pub(crate) const STRICT_BLOCKERS: &[&str] = &["not", "if", "then", "else", "dependentSchemas", "patternProperties", "prefixItems", "contains"];

/// Compiles for OpenAI (Chat and Responses share the schema dialect).
pub fn compile(root: Value, opts: &SchemaOptions, cx: &mut Cx) -> Result<Compiled> {
    let base = non_strict(root, cx)?;
    if !opts.strict {
        if contains_ref(&base, 0) {
            report_unresolvable(&base, cx);
        }
        return Ok(Compiled { schema: Some(base), strict: Some(false), plan: ArgPlan::default(), relaxed: None });
    }
    let mut scx = Cx::new(cx.limits).share_refs(cx.shares_refs());
    // `base` stays for the fallback. With references the strict schema is built anew by
    // inlining them, so only a schema without any is copied first.
    let attempt = if contains_ref(&base, 0) { strict_inlined(&base, &mut scx) } else { strict(base.clone(), &mut scx) };
    match crate::providers::strict_or_why(attempt)? {
        Ok((schema, plan)) => {
            cx.changes.append(&mut scx.changes);
            cx.problems.append(&mut scx.problems);
            Ok(Compiled { schema: Some(schema), strict: Some(true), plan, relaxed: None })
        }
        Err(why) => {
            cx.problem("openai/strict-fallback", format!("{why}; sent with strict: false"));
            if contains_ref(&base, 0) {
                report_unresolvable(&base, cx);
            }
            Ok(Compiled { schema: Some(base), strict: Some(false), plan: ArgPlan::default(), relaxed: None })
        }
    }
}

/// Steps 1-2.
pub fn non_strict(mut root: Value, cx: &mut Cx) -> Result<Value> {
    if let Value::Object(obj) = &mut root {
        merge_root_combinators(obj, cx);
        for key in ["enum", "not"] {
            if let Some(v) = obj.remove(key) {
                let hint = keyword_hint(key, &v).unwrap_or_default();
                append_description(obj, &hint);
                cx.change("openai/root-keyword", format!("root `{key}` is not allowed by OpenAI; removed and described"));
            }
        }
    }
    fix_root_structure(&mut root, cx)?;
    cx.reset_budget();
    Ok(root)
}

/// Why an object node at `at` cannot be closed (`additionalProperties: false`, as strict mode
/// closes every object) without losing what it is for, if it cannot: below the root, an object
/// that declares no properties and leaves any key allowed (`{"type": "object"}`, "a JSON payload",
/// "the action's arguments") would take nothing but `{}`, as an open map written
/// `additionalProperties: true` would. Combinators beside it bring their own properties. The root
/// declaring none is a tool without arguments, as MCP servers write one.
pub(crate) fn free_form_object(obj: &JsonObject, at: &str) -> Option<String> {
    let declared = obj.find("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
    let closed = matches!(obj.find("additionalProperties"), Some(Value::Bool(false)));
    if at.is_empty() || declared || closed || ["anyOf", "oneOf", "allOf"].iter().any(|k| obj.has(k)) {
        return None;
    }
    Some(format!("an object that declares no properties, any allowed, at {at}"))
}

/// Why draft 7's `dependencies` cannot be removed and described, if it cannot: a name's value
/// that is a schema is `dependentSchemas` (a strict blocker: it applies a schema when a property
/// is there); lists of names alone are `dependentRequired`, described.
pub(crate) fn dependent_schemas(obj: &JsonObject, at: &str) -> Option<String> {
    let deps = obj.find("dependencies")?.as_object()?;
    deps.values().any(|d| !d.is_array()).then(|| format!("`dependencies` with a schema (`dependentSchemas`) at {}", display_path(at)))
}

/// Why an object node left open by `unevaluatedProperties` (`true`, or a schema for its
/// undeclared properties) cannot be closed, if it is so left: it means those properties as an
/// open map written `additionalProperties` does, and falls back as that does. Beside an
/// `additionalProperties` (which evaluates every property) it says nothing.
pub(crate) fn open_by_unevaluated(obj: &JsonObject, at: &str) -> Option<String> {
    match obj.find("unevaluatedProperties") {
        None | Some(Value::Bool(false)) => None,
        Some(_) if obj.has("additionalProperties") || !crate::schema::lower::is_object_node(obj) => None,
        Some(_) => Some(format!("an open map (unevaluatedProperties) at {}", display_path(at))),
    }
}

/// Closes an object node for strict mode (`additionalProperties: false`), recording the change
/// under `rule` where it was open by omission (properties it does not declare were allowed, and
/// are no longer). One that says `additionalProperties: true` never comes here: it means its
/// undeclared properties, and the tool falls back (as the OpenAI Agents SDK refuses it). One
/// `closed` already ([`closed_by_unevaluated`], read before that keyword is removed) changes
/// meaning in nothing.
pub(crate) fn close(obj: &mut JsonObject, cx: &mut Cx, rule: &'static str, closed: bool) {
    if obj.find("additionalProperties").is_some() {
        return;
    }
    if !closed {
        cx.change(rule, "object closed with `additionalProperties: false` (strict mode closes every object): properties it does not declare, allowed by omission, are no longer accepted");
    }
    obj.put("additionalProperties", Value::Bool(false));
}

/// Whether `unevaluatedProperties: false` closes this object node as `additionalProperties:
/// false` does: with nothing beside it that could evaluate properties the node does not declare
/// (a combinator's branch, a conditional, a reference), which it would accept and
/// `additionalProperties: false` not.
pub(crate) fn closed_by_unevaluated(obj: &JsonObject) -> bool {
    const EVALUATING: [&str; 10] = ["allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "$ref", "$dynamicRef", "$recursiveRef"];
    matches!(obj.find("unevaluatedProperties"), Some(Value::Bool(false))) && !EVALUATING.iter().any(|k| obj.has(k))
}

/// Steps 3-6. The outer `Result` is a hard error (limits); the inner one a reason to fall back.
fn strict(mut root: Value, cx: &mut Cx) -> Strict<(Value, ArgPlan)> {
    let mut budget = Budget::default();
    drop_root_nullable(&mut root, cx, "openai/strict-keyword");
    let plan = match strict_node(&mut root, cx, 0, &mut budget)? {
        Ok(plan) => plan,
        Err(reason) => return Ok(Err(reason)),
    };
    if let Some(reason) = budget.exceeded() {
        return Ok(Err(reason));
    }
    Ok(Ok((root, plan)))
}

/// [`strict`] on `root` with its references inlined first, or with its references kept
/// ([`strict_with_defs`]) where inlining cannot do: a recursion, which it would have to cut;
/// a size past the expansion budget, which it would cut too; or a schema grown more than the
/// budget's factor (see [`StrictInlining::grown`]), where the form with references is tried
/// first.
fn strict_inlined(root: &Value, cx: &mut Cx) -> Strict<(Value, ArgPlan)> {
    // Shared expansions are copied in as `strict_node` reaches them (most schemas that cannot be
    // strict are found so before most of their copies).
    let inlined = inline_refs_strict(root, cx)?;
    let kept = |why: &str, cx: &mut Cx| -> Strict<(Value, ArgPlan)> {
        // The references kept instead, as Structured Outputs takes them, in a context of their
        // own (nothing of the inlining attempt is reported).
        let mut dcx = Cx::new(cx.limits);
        let kept = strict_with_defs(root, why, &mut dcx)?;
        if kept.is_ok() {
            cx.changes = std::mem::take(&mut dcx.changes);
            cx.problems = std::mem::take(&mut dcx.problems);
        }
        Ok(kept)
    };
    if inlined.schema.is_none() {
        return kept("recursive schema", cx);
    }
    if inlined.cut > 0 {
        return match kept("its references, inlined, would pass the expansion budget", cx)? {
            Ok(strict) => Ok(Ok(strict)),
            Err(reason) => Err(over_budget(&inlined, Some(&reason))),
        };
    }
    if inlined.grown() {
        if let Ok(strict) = kept(&format!("its references, inlined, would make it {} times larger", inlined.nodes / inlined.input_nodes.max(1)), cx)? {
            return Ok(Ok(strict));
        }
    }
    strict(inlined.schema.unwrap_or_default(), cx)
}

/// The reason a strict mode gives up on a schema whose references, inlined, pass the expansion
/// budget (`inlined.cut` of them cut to open objects, which strict mode would close), as a
/// limit: [`crate::providers::strict_or_why`] says so. `kept`: why the form with references
/// cannot be strict either, where there is one.
pub(crate) fn over_budget(inlined: &StrictInlining, kept: Option<&str>) -> crate::error::Error {
    let mut message = format!(
        "its references, inlined, pass the expansion budget of {} schema nodes ({} cut to open objects)",
        inlined.budget, inlined.cut
    );
    if let Some(reason) = kept {
        message.push_str(&format!("; with its references kept: {reason}"));
    }
    crate::error::Error::new(crate::error::ErrorCode::LimitExceeded, message)
}

/// A schema whose local references all point into one table at the root, for strict mode on
/// a recursive schema: the root, its references rewritten (`#/$defs/name`, or `#` for the root)
/// and its `$defs`/`definitions` left for [`strict_object`] to drop, and the table, each
/// referenced subschema once under a name, copied from `base` and its own references rewritten.
/// A definition keeps a plain name (`#/$defs/Node`, `#/definitions/Node`); any other target (a
/// pointer into `properties`, a clashing or unusual name) is named `ref` and a number. Fails,
/// saying why, on anything strict mode gives up on wherever it stands in the document (an open
/// map or one of [`STRICT_BLOCKERS`], even in a definition nothing uses: `fast::recursion`
/// tells the same from its tree) or in a definition, a reference that does not resolve to a
/// schema object, one whose siblings are not annotations, and an `allOf` over a reference
/// (merging it needs the target's keywords, which a recursion cannot inline).
fn defs_form(base: &Value, cx: &mut Cx) -> std::result::Result<(Value, Vec<(String, Value)>), String> {
    struct Gather<'a> {
        base: &'a Value,
        /// Each target met and its name, in order; by address, its index there; the names.
        targets: Vec<(&'a Value, String)>,
        by_address: HashMap<usize, usize>,
        names: HashSet<String>,
        failed: Option<String>,
        /// Where the document's chains of references end: whether they reach a schema, and the
        /// last reference and its target of a chain of plain ones, so each is followed once.
        chains: Chains<'a>,
        ends: HashMap<&'a str, (&'a str, &'a Value)>,
    }
    impl<'a> Gather<'a> {
        fn name_of(&mut self, reference: &str) -> std::result::Result<String, String> {
            let unresolved = |r: &str| format!("$ref \"{r}\" does not resolve to a schema object");
            // A loop that runs through a one-branch `allOf` too, which the chain below does not
            // follow: past this, the chain below reaches an end.
            if self.chains.never_reaches_schema(self.base, reference) {
                return Err(format!("$ref \"{reference}\" leads through references that never reach a schema"));
            }
            let mut target = lookup(self.base, reference).ok_or_else(|| unresolved(reference))?;
            // A target that is nothing but a reference stands for that one's target.
            let only_ref = |v: &'a Value| v.as_object().filter(|o| o.len() == 1).and_then(|o| o.find("$ref")).and_then(Value::as_str);
            let (mut last, mut followed) = (None, Vec::new());
            while let Some(next) = only_ref(target) {
                if let Some(&(end, end_target)) = self.ends.get(next) {
                    (last, target) = (Some(end), end_target);
                    break;
                }
                target = lookup(self.base, next).ok_or_else(|| unresolved(next))?;
                last = Some(next);
                followed.push(next);
            }
            if let Some(end) = last {
                self.ends.extend(followed.into_iter().map(|r| (r, (end, target))));
            }
            let reference = last.unwrap_or(reference).owned();
            if !target.is_object() {
                return Err(unresolved(&reference));
            }
            if std::ptr::eq(target, self.base) {
                return Ok("#".owned());
            }
            let address = target as *const Value as usize;
            if let Some(&i) = self.by_address.get(&address) {
                return Ok(format!("#/$defs/{}", self.targets[i].1));
            }
            let plain = ["#/$defs/", "#/definitions/"].iter().find_map(|p| reference.strip_prefix(p)).filter(|n| {
                (1..=64).contains(&n.len()) && n.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
            });
            let mut name = plain.filter(|n| !self.names.contains(*n)).map(str::to_owned).unwrap_or_default();
            let mut n = self.targets.len();
            while name.is_empty() || self.names.contains(&name) {
                n += 1;
                name = format!("ref{n}");
            }
            self.by_address.insert(address, self.targets.len());
            self.names.insert(name.clone());
            self.targets.push((target, name.clone()));
            Ok(format!("#/$defs/{name}"))
        }

        fn visit(&mut self, node: &mut Value, cx: &mut Cx) {
            let Value::Object(obj) = node else { return };
            if self.failed.is_some() {
                return;
            }
            for (k, v) in obj.iter() {
                if k == "additionalProperties" && *v != Value::Bool(false) {
                    self.failed = Some(format!("an open map (additionalProperties) at {}", display_path(cx.path())));
                } else if STRICT_BLOCKERS.contains(&k.as_str()) {
                    self.failed = Some(format!("`{k}` at {}", display_path(cx.path())));
                }
            }
            let over_ref = |b: &Value| b.as_object().is_some_and(|b| b.has("$ref"));
            if let Some(Value::Array(all)) = obj.find("allOf") {
                // `allOf: [{$ref}]` (pydantic's form for a described reference) is the reference
                // itself; more branches would be merged with a target they cannot see.
                if all.len() == 1 && over_ref(&all[0]) && !obj.has("anyOf") {
                    if let Some(branches) = obj.remove("allOf") {
                        obj.put("anyOf", branches);
                    }
                } else if all.iter().any(over_ref) {
                    self.failed = Some(format!("an `allOf` over a recursive schema's reference at {}", display_path(cx.path())));
                }
            }
            if self.failed.is_some() {
                return;
            }
            let mut target = None;
            if let Some(reference) = obj.find("$ref").map(|r| r.as_str().map(str::to_owned)) {
                let named = reference.ok_or_else(|| "a `$ref` that is not a string".owned()).and_then(|r| self.name_of(&r));
                match named {
                    Ok(named) => target = Some(object([("$ref", Value::String(named))])),
                    Err(reason) => return self.failed = Some(reason),
                }
                if let Some(k) = obj.keys().find(|k| *k != "$ref" && !is_annotation(k)) {
                    return self.failed = Some(format!("a `$ref` with the sibling keyword `{k}` at {}", display_path(cx.path())));
                }
                obj.remove("$ref");
            }
            // Beside a reference, only definitions (annotations have no subschemas).
            let _ = for_each_subschema_mut(obj, cx, &mut |sub, cx| {
                self.visit(sub, cx);
                Ok(())
            });
            match target {
                Some(target) if obj.is_empty() => *node = target,
                Some(target) => {
                    obj.put("anyOf", Value::Array(vec![target]));
                }
                None => {}
            }
        }
    }

    let mut g = Gather { base, targets: Vec::new(), by_address: HashMap::new(), names: HashSet::new(), failed: None, chains: Chains::default(), ends: HashMap::new() };
    let mut root = base.clone();
    g.visit(&mut root, cx);
    // Each target copied from `base` and rewritten as a definition of its own (it may stand
    // where the walk above does not go, and may name further targets).
    let mut defs = Vec::new();
    while let (None, Some((target, name))) = (&g.failed, g.targets.get(defs.len()).cloned()) {
        let mut def = target.clone();
        let _ = cx.at("$defs", |cx| {
            cx.at(&name, |cx| {
                g.visit(&mut def, cx);
                Ok(())
            })
        });
        defs.push((name, def));
    }
    match g.failed {
        Some(reason) => Err(reason),
        None => Ok((root, defs)),
    }
}

/// [`strict`] on a recursive schema: every reference rewritten to point into one `$defs`
/// table at the root (`#` for the root), the root and each definition made strict once, and
/// the argument plan of each definition kept beside the root's, where the references name it.
/// A definition that no reference of the strict schema reaches (strict mode removed every one
/// there was) is left out, with what it reports.
fn strict_with_defs(root: &Value, why: &str, cx: &mut Cx) -> Strict<(Value, ArgPlan)> {
    let (mut root, defs) = match defs_form(root, cx) {
        Ok(form) => form,
        Err(reason) => return Ok(Err(reason)),
    };
    if root.find("$ref").is_some() || root.find("anyOf").is_some() {
        return Ok(Err("a root that is a recursive `$ref`".owned()));
    }
    let mut budget = Budget::default();
    drop_root_nullable(&mut root, cx, "openai/strict-keyword");
    let mut plan = match strict_node(&mut root, cx, 0, &mut budget)? {
        Ok(plan) => plan,
        Err(reason) => return Ok(Err(reason)),
    };
    // Each definition made strict, with what the limits count of it and what it reports (the
    // ranges of the change and problem lists), which go with it if no reference reaches it.
    let mut strict_defs = Vec::with_capacity(defs.len());
    for (name, mut def) in defs {
        // The limits count definition names with property names; a definition's objects nest
        // from the root, where it is declared.
        let mut own = Budget { chars: name.chars().count(), ..Budget::default() };
        let said = (cx.changes.len(), cx.problems.len());
        match cx.at("$defs", |cx| cx.at(&name, |cx| strict_node(&mut def, cx, 1, &mut own)))? {
            Ok(p) => {
                let said = (said.0..cx.changes.len(), said.1..cx.problems.len());
                strict_defs.push((name, def, p, own, said));
            }
            Err(reason) => return Ok(Err(reason)),
        }
    }
    // A definition that strict mode removed every reference to (one under a keyword it removes,
    // say) is not sent, nor counted, nor reported, as one that nothing referenced in the input.
    let reached = reached_definitions(&root, &strict_defs.iter().map(|(name, def, ..)| (name.as_str(), def)).collect::<Vec<_>>());
    for (i, (_, _, _, _, (changes, problems))) in strict_defs.iter().enumerate().rev() {
        if !reached[i] {
            cx.changes.drain(changes.clone());
            cx.problems.drain(problems.clone());
        }
    }
    let mut table = serde_json::Map::new();
    for ((name, def, p, own, _), _) in strict_defs.into_iter().zip(reached).filter(|(_, reached)| *reached) {
        budget.add(own);
        if !p.is_empty() {
            plan.defs.get_or_insert_with(Box::default).insert(name.clone(), p);
        }
        table.insert(name, def);
    }
    let count = table.len();
    if let Some(reason) = budget.exceeded() {
        return Ok(Err(reason));
    }
    // The fits of branches kept as references, from their definitions, strict now.
    let resolve = |r: &str| match r {
        "#" => Some(&root),
        _ => r.strip_prefix("#/$defs/").and_then(|name| table.get(name)),
    };
    reference_fits(&root, &mut plan, &resolve, cx, 0)?;
    // Optional properties whose null comes from a definition lose it as the others do.
    for (path, name, schema) in std::mem::take(&mut budget.null_by_reference) {
        if allows_null_through(&schema, &resolve, 0) {
            cx.problems.push(crate::report::Diagnostic { path, rule: "openai/strict-null-absent", message: null_absent(&name) });
        }
    }
    let mut defs = plan.defs.take();
    for (name, p) in defs.iter_mut().flat_map(|d| d.iter_mut()) {
        if let Some(def) = table.get(name.as_str()) {
            cx.at("$defs", |cx| cx.at(name, |cx| reference_fits(def, p, &resolve, cx, 1)))?;
        }
    }
    plan.defs = defs;
    plan.drop_dangling_references();
    if let (Value::Object(obj), false) = (&mut root, table.is_empty()) {
        obj.put("$defs", Value::Object(table));
    }
    if contains_ref(&root, 0) {
        cx.change("openai/strict-defs", format!("{why}: its references kept, to {count} definitions under the root's $defs"));
    }
    Ok(Ok((root, plan)))
}

/// Which of the definitions `defs` (named as [`defs_form`] names them) a reference reaches,
/// from the strict `root` and from the definitions it reaches.
fn reached_definitions(root: &Value, defs: &[(&str, &Value)]) -> Vec<bool> {
    /// The `$ref`s of a schema; `false` past 512 levels, where it stops looking.
    fn refs<'v>(v: &'v Value, out: &mut Vec<&'v str>, depth: usize) -> bool {
        let Value::Object(o) = v else { return true };
        if depth > 512 {
            return false;
        }
        if let Some(Value::String(r)) = o.find("$ref") {
            out.push(r);
        }
        o.iter().all(|(k, sub)| match (slot(k, sub), sub) {
            (Slot::Map, Value::Object(m)) => m.values().all(|s| refs(s, out, depth + 1)),
            (Slot::Array, Value::Array(a)) => a.iter().all(|s| refs(s, out, depth + 1)),
            (Slot::Single, s) => refs(s, out, depth + 1),
            _ => true,
        })
    }
    let by_name: HashMap<&str, usize> = defs.iter().enumerate().map(|(i, (name, _))| (*name, i)).collect();
    let mut reached = vec![false; defs.len()];
    let mut todo = vec![root];
    while let Some(node) = todo.pop() {
        let mut found = Vec::new();
        if !refs(node, &mut found, 0) {
            // Too deep to tell: every definition kept.
            return vec![true; defs.len()];
        }
        for i in found.into_iter().filter_map(|r| r.strip_prefix("#/$defs/").and_then(|name| by_name.get(name).copied())) {
            if !reached[i] {
                reached[i] = true;
                todo.push(defs[i].1);
            }
        }
    }
    reached
}

/// The branches of a union that some arguments may fit both of and that map them back
/// differently ([`ambiguous_branches`]), reported.
fn report_ambiguous(plans: &[ArgPlan], cx: &mut Cx) {
    for (i, j) in ambiguous_branches(plans) {
        cx.problem(
            "openai/strict-anyof-ambiguous",
            format!("branches {i} and {j} of the anyOf can fit the same arguments (nothing the conversion reads of them a few levels down, their types, const and enum values, required properties and closed objects, tells them apart) and map them back differently (a null one removes as absent, the other keeps): such arguments are mapped back by the branch that changes them most"),
        );
    }
}

/// The unions of a schema whose references are kept ([`strict_with_defs`]) that have a branch
/// kept as a reference: their branches' fits read again with each reference read as its
/// definition, strict now (an empty fit would take any value, and a value of another branch
/// would be mapped back by the definition's plan), and the ambiguity check [`strict_object`]
/// left for then. `node`: the strict schema `plan` is the plan of.
fn reference_fits<'t>(node: &Value, plan: &mut ArgPlan, resolve: &dyn Fn(&str) -> Option<&'t Value>, cx: &mut Cx, depth: usize) -> Result<()> {
    if depth > 128 {
        return Ok(());
    }
    for (name, p) in plan.properties.iter_mut() {
        if let Some(sub) = node.get("properties").and_then(|ps| ps.get(name.as_str())) {
            cx.at("properties", |cx| cx.at(name, |cx| reference_fits(sub, p, resolve, cx, depth + 1)))?;
        }
    }
    if let (Some(p), Some(sub)) = (plan.items.as_deref_mut(), node.get("items")) {
        cx.at("items", |cx| reference_fits(sub, p, resolve, cx, depth + 1))?;
    }
    let Some(Value::Array(branches)) = node.get("anyOf") else { return Ok(()) };
    if plan.any_of.len() != branches.len() {
        return Ok(());
    }
    for (i, (p, b)) in plan.any_of.iter_mut().zip(branches).enumerate() {
        cx.at("anyOf", |cx| cx.at(&i.to_string(), |cx| reference_fits(b, p, resolve, cx, depth + 1)))?;
    }
    if plan.any_of.iter().any(|p| p.reference.is_some()) {
        for (p, b) in plan.any_of.iter_mut().zip(branches) {
            p.fit = Some(Box::new(Fit::of_with(b, resolve)));
        }
        report_ambiguous(&plan.any_of, cx);
    }
    Ok(())
}

/// The characters of an enum's strings, its `null` none (`None` when another value is no
/// string: the large-enum limit is about enums of strings).
pub(crate) fn string_chars<'v>(values: impl IntoIterator<Item = &'v Value>) -> Option<usize> {
    values.into_iter().map(|v| if v.is_null() { Some(0) } else { v.as_str().map(|s| s.chars().count()) }).sum()
}

/// How many values a node's `enum` lists.
fn enum_len(node: &Value) -> usize {
    node.get("enum").and_then(Value::as_array).map_or(0, Vec::len)
}

/// What strict mode's limits count, over one schema.
#[derive(Default)]
pub(crate) struct Budget {
    pub properties: usize,
    pub depth: usize,
    pub enum_values: usize,
    /// Of those, the values that making optional properties nullable added.
    pub added_values: usize,
    pub chars: usize,
    /// The first enum of more than 250 strings that totals more than 15,000 characters: (values, characters).
    pub large_enum: Option<(usize, usize)>,
    /// Optional properties that may allow `null` through a reference kept in `$defs` (whether
    /// they do is known once the definitions are strict): the property's path, its name, and
    /// its schema before it was widened to nullable.
    pub(crate) null_by_reference: Vec<(String, String, Value)>,
}

impl Budget {
    /// Counts an enum of `values` values whose strings total `chars` characters (OpenAI's
    /// limits count characters, not UTF-8 bytes). `string_chars`, asked only of an enum that may
    /// be past the large-enum limit: its characters when every value is a string (or `null`).
    pub(crate) fn count_enum(&mut self, values: usize, chars: usize, string_chars: impl FnOnce() -> Option<usize>) {
        self.enum_values += values;
        self.chars += chars;
        self.check_large_enum(values, chars, string_chars);
    }

    /// Counts the values that making an optional property nullable adds to its enum (`before`
    /// values, now `values`, `chars` characters of strings): its `null`, and a `const` made an
    /// enum of it and `null` (its characters counted as the `const`'s). The enum's own count,
    /// made before, did not have them: an enum of 1,000 is sent with 1,001.
    pub(crate) fn count_widened(&mut self, before: usize, values: usize, chars: usize, string_chars: impl FnOnce() -> Option<usize>) {
        self.enum_values += values.saturating_sub(before);
        self.added_values += values.saturating_sub(before);
        self.check_large_enum(values, chars, string_chars);
    }

    fn check_large_enum(&mut self, values: usize, chars: usize, string_chars: impl FnOnce() -> Option<usize>) {
        if values > 250 && chars > 15_000 && self.large_enum.is_none() {
            if let Some(chars) = string_chars().filter(|&c| c > 15_000) {
                self.large_enum = Some((values, chars));
            }
        }
    }

    /// Adds what `other` counts, of a part of the schema counted after this one's.
    fn add(&mut self, other: Budget) {
        self.properties += other.properties;
        self.depth = self.depth.max(other.depth);
        self.enum_values += other.enum_values;
        self.added_values += other.added_values;
        self.chars += other.chars;
        self.large_enum = self.large_enum.or(other.large_enum);
        self.null_by_reference.extend(other.null_by_reference);
    }

    /// Why the schema is past a limit, if it is.
    pub(crate) fn exceeded(&self) -> Option<String> {
        if self.properties > 5000 {
            Some(format!("{} object properties, more than the 5,000 allowed", self.properties))
        } else if self.depth > 10 {
            Some(format!("{} levels of nesting, more than the 10 allowed", self.depth))
        } else if self.enum_values > 1000 {
            let added = match self.added_values {
                0 => String::new(),
                n => format!(" ({n} of them added to make optional properties nullable)"),
            };
            Some(format!("{} enum values{added}, more than the 1,000 allowed", self.enum_values))
        } else if self.chars > 120_000 {
            Some(format!("{} characters of names and enum values, more than the 120,000 allowed", self.chars))
        } else if let Some((values, bytes)) = self.large_enum {
            Some(format!("an enum of {values} strings totalling {bytes} characters, where more than 250 values may total 15,000 at most"))
        } else {
            None
        }
    }
}

type Strict<T> = Result<std::result::Result<T, String>>;

fn strict_node(node: &mut Value, cx: &mut Cx, level: usize, budget: &mut Budget) -> Strict<ArgPlan> {
    Shared::materialize(node, cx);
    let obj = match node {
        Value::Object(o) => o,
        Value::Bool(_) => return Ok(Err("a boolean subschema".owned())),
        _ => return Ok(Ok(ArgPlan::default())),
    };
    cx.enter()?;
    let r = strict_object(obj, cx, level, budget);
    cx.leave();
    r
}

fn strict_object(obj: &mut JsonObject, cx: &mut Cx, level: usize, budget: &mut Budget) -> Strict<ArgPlan> {
    // A reference, alone ([`defs_form`] wrote it so): its definition is made strict once.
    if let Some(Value::String(r)) = obj.find("$ref") {
        // Strict mode takes a reference alone. One that kept siblings (an allOf of a recursive
        // reference and more, merged) cannot be written without changing what it means.
        if let Some(k) = obj.keys().find(|k| !matches!(k.as_str(), "$ref" | "description")) {
            return Ok(Err(format!("a recursive reference combined with `{k}` at {}", display_path(cx.path()))));
        }
        let name = r.strip_prefix("#/$defs/").unwrap_or(r);
        return Ok(Ok(ArgPlan { reference: Some(name.into()), ..ArgPlan::default() }));
    }
    // Definitions left where [`defs_form`] found them (the references point into its table).
    obj.remove("$defs");
    obj.remove("definitions");
    if obj.has("allOf") {
        // Two `title`s are a lost annotation, reported as a change (the first kept), not a reason
        // to give up strict mode.
        let (titles, conflicts): (Vec<String>, Vec<String>) = merge_all_of(obj).into_iter().partition(|k| k == "title");
        if !conflicts.is_empty() {
            return Ok(Err(format!("allOf branches disagree on {}", conflicts.join(", "))));
        }
        cx.change("openai/strict-allof", "allOf merged into one schema");
        if !titles.is_empty() {
            cx.change("openai/strict-allof", "allOf branches disagree on `title`; the first value is kept");
        }
    }
    if one_of_as_any_of(obj) {
        cx.change("openai/strict-oneof", "oneOf rewritten as anyOf (strict mode has no oneOf)");
    }
    for key in STRICT_BLOCKERS {
        if obj.has(key) {
            return Ok(Err(format!("`{key}` at {}", display_path(cx.path()))));
        }
    }
    if let Some(reason) = dependent_schemas(obj, cx.path()) {
        return Ok(Err(reason));
    }
    // Open maps cannot be strict: additionalProperties must be false everywhere. An object open
    // by omission is closed below (and said); one that says `true` means its undeclared
    // properties, and falls back, as an open map of a value schema does.
    match obj.find("additionalProperties") {
        None | Some(Value::Bool(false)) => {}
        Some(_) => return Ok(Err(format!("an open map (additionalProperties) at {}", display_path(cx.path())))),
    }
    if let Some(reason) = open_by_unevaluated(obj, cx.path()) {
        return Ok(Err(reason));
    }
    if let Err(reason) = distribute_into_branches(obj, cx) {
        return Ok(Err(reason));
    }
    let mut notes = Notes::default();
    if obj.find("format").and_then(Value::as_str).is_some_and(|f| !STRICT_FORMATS.contains(&f)) {
        if let Some(v) = obj.take("format") {
            fold(obj, &mut notes, cx, "format", &v);
        }
    }
    // The format's note goes on the node itself, before `nullable` may wrap it in an `anyOf`
    // (which moves the node, and its description, into a branch).
    notes.write(obj);
    let mut notes = Notes::default();
    if openapi_nullable(obj) {
        cx.change("openai/strict-keyword", "`nullable: true` (OpenAPI) is not supported in strict mode; written as a `null` type");
    }
    let closed = closed_by_unevaluated(obj);
    let removable: Vec<String> = obj.keys().filter(|k| !STRICT_KEYWORDS.contains(&k.as_str())).cloned().collect();
    for key in removable {
        if let Some(v) = obj.remove(&key) {
            fold(obj, &mut notes, cx, &key, &v);
        }
    }
    notes.write(obj);
    if types_of(obj).is_empty() && obj.has("properties") {
        obj.put("type", string("object"));
        cx.change("openai/strict-infer-object", "schema with properties but no type: typed object");
    }
    let types = types_of(obj);
    if types.is_empty() && !obj.has("anyOf") && !obj.has("enum") && !obj.has("const") {
        return Ok(Err(format!("a schema without a type at {}", display_path(cx.path()))));
    }
    if let Some(Value::Array(e)) = obj.find("enum") {
        let chars = e.iter().filter_map(Value::as_str).map(|s| s.chars().count()).sum::<usize>();
        budget.count_enum(e.len(), chars, || string_chars(e));
    } else if let Some(c) = obj.find("const") {
        // Its characters count with the enum values' (no enum value itself).
        budget.count_enum(0, c.as_str().map_or(0, |s| s.chars().count()), || None);
    }
    let mut plan = ArgPlan::default();
    let is_object = types.contains(&"object");
    // Closed by the user (strict mode closes every object below): said of each object branch
    // of an `anyOf` beside it if the node's own `additionalProperties` goes with its type.
    let closed_by_user = matches!(obj.find("additionalProperties"), Some(Value::Bool(false)));
    if !is_object && !types.is_empty() {
        for key in ["properties", "required", "additionalProperties"] {
            if obj.remove(key).is_some() {
                cx.change("openai/strict-not-object", format!("`{key}` on a non-object node has no effect; removed"));
            }
        }
    }
    if is_object {
        if let Some(reason) = free_form_object(obj, cx.path()) {
            return Ok(Err(reason));
        }
        budget.depth = budget.depth.max(level + 1);
        close(obj, cx, "openai/strict-close", closed);
        // Owned (the properties are rewritten in place below), in a set past a few names.
        let required_names: Vec<String> = obj
            .find("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
            .unwrap_or_default();
        let required = NameSet::of(required_names.iter().map(String::as_str));
        let mut all = Vec::new();
        let mut meaningful_null = Vec::new();
        if let Some(Value::Object(props)) = obj.find_mut("properties") {
            budget.properties += props.len();
            for (name, sub) in props.iter_mut() {
                budget.chars += name.chars().count();
                // A default of `null`: left out or `null`, the property is the same to the server.
                let null_by_default = sub.get("default").is_some_and(Value::is_null);
                let sub_plan = match cx.at("properties", |cx| cx.at(name, |cx| strict_node(sub, cx, level + 1, budget)))? {
                    Ok(p) => p,
                    Err(reason) => return Ok(Err(reason)),
                };
                plan.set_property(name, sub_plan);
                if !required.contains(name) && !null_by_default {
                    if allows_null(sub) {
                        meaningful_null.push(name.clone());
                    } else if allows_null_through(sub, &|_| Some(&*NULL_SCHEMA), 0) {
                        // Its null may come through a definition, strict only later.
                        let path = cx.at("properties", |cx| cx.at(name, |cx| Ok(cx.path().to_owned())))?;
                        budget.null_by_reference.push((path, name.clone(), sub.clone()));
                    }
                }
                if !required.contains(name) {
                    let before = enum_len(sub);
                    if before >= NULL_BESIDE_ENUM && !allows_null(sub) {
                        // Its null a branch beside it, not a value of the enum, where it would
                        // count against the limits on enum values and take an enum within them past.
                        let node = std::mem::take(sub);
                        *sub = object([("anyOf", Value::Array(vec![node, object([("type", string("null"))])]))]);
                    } else {
                        widen_nullable(sub);
                    }
                    if let Some(Value::Array(e)) = sub.get("enum").filter(|_| enum_len(sub) > before) {
                        let chars = e.iter().filter_map(Value::as_str).map(|s| s.chars().count()).sum::<usize>();
                        budget.count_widened(before, e.len(), chars, || string_chars(e));
                    }
                    plan.null_means_absent.push(name.clone());
                }
                all.push(string(name));
            }
        }
        if !plan.null_means_absent.is_empty() {
            let names = plan.null_means_absent.join(", ");
            cx.change("openai/strict-nullable", format!("optional properties made required and nullable: {names}"));
        }
        for name in meaningful_null {
            cx.at("properties", |cx| {
                cx.at(&name, |cx| {
                    cx.problem("openai/strict-null-absent", null_absent(&name));
                    Ok(())
                })
            })?;
        }
        obj.put("required", Value::Array(all));
    }
    if let Some(items) = obj.find_mut("items") {
        let p = match cx.at("items", |cx| strict_node(items, cx, level, budget))? {
            Ok(p) => p,
            Err(reason) => return Ok(Err(reason)),
        };
        if !p.is_empty() {
            plan.items = Some(Box::new(p));
        }
    }
    if let Some(Value::Array(branches)) = obj.find_mut("anyOf") {
        let mut plans = Vec::new();
        for (i, b) in branches.iter_mut().enumerate() {
            match cx.at("anyOf", |cx| cx.at(&i.to_string(), |cx| strict_node(b, cx, level, budget)))? {
                Ok(p) => plans.push(p),
                Err(reason) => return Ok(Err(reason)),
            }
        }
        if plans.iter().any(|p| !p.is_empty()) {
            // Each plan maps back only values of its branch (`ArgPlan::apply`).
            for (p, b) in plans.iter_mut().zip(branches.iter()) {
                p.fit = Some(Box::new(Fit::of(b)));
            }
            // A branch kept as a reference (a recursion) fits what its definition does, which
            // is strict only once every definition is: [`reference_fits`] reads it then.
            if !plans.iter().any(|p| p.reference.is_some()) {
                report_ambiguous(&plans, cx);
            }
            plan.any_of = plans;
        }
        if any_of_without_type(obj) {
            cx.change("openai/strict-anyof-type", "`type` beside `anyOf` whose branches are typed within it removed (the branches say it; SDKs refuse the two together)");
            if is_object && closed_by_user {
                cx.change(
                    "openai/strict-anyof-type",
                    "`additionalProperties: false` beside `anyOf` removed with the type: each object branch is closed instead (a branch's own properties are allowed)",
                );
            }
        }
    }
    Ok(Ok(plan))
}

/// An object with properties of its own and an `anyOf` of object branches: strict mode closes
/// every branch, which would then refuse the object's own properties (no argument could match a
/// branch and the object both). `object ∧ (A ∨ B)` is written `(object ∧ A) ∨ (object ∧ B)`:
/// the object's properties and `required` go into each branch (a property both define gets a
/// schema that says both), and the object keeps only its type. Where the object was closed by
/// its author, a branch's property it does not declare could never be given: it is removed from
/// the branch, and a branch that requires one is removed (none left: the reason to fall back).
fn distribute_into_branches(obj: &mut JsonObject, cx: &mut Cx) -> std::result::Result<(), String> {
    let own = obj.find("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
    let object = types_of(obj).contains(&"object") || (types_of(obj).is_empty() && obj.has("properties"));
    let Some(Value::Array(branches)) = obj.find("anyOf") else { return Ok(()) };
    let object_branch = |b: &Value| b.as_object().is_some_and(|b| { let ts = types_of(b); ts.is_empty() || ts == ["object"] });
    // A `{type: "null"}` branch (a nullable union) stays as it is: the object's properties are
    // not its own.
    let null_branch = |b: &Value| b.as_object().is_some_and(|b| types_of(b) == ["null"]);
    if !own || !object || !branches.iter().any(object_branch) || !branches.iter().all(|b| object_branch(b) || null_branch(b)) {
        return Ok(());
    }
    let closed = matches!(obj.find("additionalProperties"), Some(Value::Bool(false)));
    let Some(Value::Object(props)) = obj.take("properties") else { return Ok(()) };
    let required: Vec<Value> = match obj.take("required") {
        Some(Value::Array(r)) => r,
        _ => Vec::new(),
    };
    obj.take("additionalProperties");
    let Some(Value::Array(branches)) = obj.take("anyOf") else { return Ok(()) };
    let count = branches.len();
    let mut kept = Vec::with_capacity(count);
    let mut objects = 0;
    for b in branches {
        if null_branch(&b) {
            kept.push(b);
            continue;
        }
        let Value::Object(mut b) = b else { continue };
        objects += 1;
        b.put("type", string("object"));
        let mut bp = match b.take("properties") {
            Some(Value::Object(p)) => p,
            _ => serde_json::Map::new(),
        };
        let mut br: Vec<Value> = match b.take("required") {
            Some(Value::Array(r)) => r,
            _ => Vec::new(),
        };
        if closed {
            // What the closed object refuses, the branch cannot be given.
            bp.retain(|name, _| props.contains_key(name));
            let refused = br.iter().any(|r| r.as_str().is_some_and(|n| !props.contains_key(n)));
            if refused {
                continue;
            }
        }
        let mut merged = props.clone();
        for (name, s) in bp {
            let both = match merged.get(&name) {
                Some(mine) if *mine != s => crate::schema::lower::intersect(mine, &s).0,
                _ => s,
            };
            merged.insert(name, both);
        }
        for r in &required {
            if !br.contains(r) {
                br.push(r.clone());
            }
        }
        b.put("properties", Value::Object(merged));
        if !br.is_empty() {
            b.put("required", Value::Array(br));
        }
        kept.push(Value::Object(b));
    }
    if !kept.iter().any(object_branch) {
        return Err(format!("every object branch of the `anyOf` at {} requires a property its closed object refuses", display_path(cx.path())));
    }
    let dropped = objects - kept.iter().filter(|b| object_branch(b)).count();
    obj.put("anyOf", Value::Array(kept));
    let mut message = "the object's own properties and `required` copied into each object branch of its `anyOf` (strict mode closes every branch, which would refuse them)".owned();
    if dropped > 0 {
        message.push_str(&format!("; {dropped} branch(es) requiring a property the closed object refuses removed (they could never match)"));
    }
    cx.change("openai/strict-distribute", message);
    Ok(())
}

/// A node with both `type` and `anyOf` (`{type: "object", anyOf: [{type: "object", ...}, ...]}`),
/// which OpenAI's Agents SDK refuses: where every branch is typed within the node's types, the
/// node's `type` says nothing the branches do not, and goes; a `null` in it that no branch
/// allows goes too (the `anyOf` refused `null`). An object node goes only with no properties of its
/// own, and its `properties: {}`, `additionalProperties` and `required` with its type (closed,
/// it would reject every branch's properties). Returns whether the type went.
fn any_of_without_type(obj: &mut JsonObject) -> bool {
    let node: Vec<String> = types_of(obj).into_iter().map(str::to_owned).collect();
    let Some(Value::Array(branches)) = obj.find("anyOf") else { return false };
    if node.is_empty() {
        return false;
    }
    let mut covered: Vec<&str> = Vec::new();
    for b in branches {
        let Value::Object(b) = b else { return false };
        let ts = types_of(b);
        if ts.is_empty() || !ts.iter().all(|t| node.iter().any(|n| n == t)) {
            return false;
        }
        covered.extend(ts);
    }
    // A `null` type no branch allows: `null` failed the `anyOf` (all of it must hold), so the
    // type's `null` allowed nothing and goes with it.
    match node.iter().filter(|t| !covered.contains(&t.as_str())).collect::<Vec<_>>()[..] {
        [] => {}
        [t] if t == "null" => {}
        _ => return false,
    }
    let is_object = node.iter().any(|t| t == "object");
    if is_object && !obj.find("properties").is_none_or(|p| p.as_object().is_some_and(JsonObject::is_empty)) {
        return false;
    }
    obj.take("type");
    if is_object {
        for key in ["properties", "additionalProperties", "required"] {
            obj.take(key);
        }
    }
    true
}

/// Why the null of an optional property that allows it is lost: strict mode has no optional
/// property, and its `null` is all that can say "absent".
fn null_absent(name: &str) -> String {
    format!("optional property \"{name}\" allows null, but strict mode makes it required and its null means absent: a null the model sends is removed, and null itself cannot be sent (convert with strict: false if the server must get null, to clear a field say)")
}

/// Whether a (strict) schema accepts `null` as it is: each of its `type`, `enum`, `const` and
/// `anyOf` that it has lets `null` through (a `null` type, value, or branch).
fn allows_null(schema: &Value) -> bool {
    allows_null_through(schema, &|_| None, 0)
}

/// A schema of `null` alone.
static NULL_SCHEMA: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| object([("type", string("null"))]));

/// [`allows_null`], a `$ref` read as the schema `resolve` gives for it (none: no `null`).
fn allows_null_through<'t>(schema: &Value, resolve: &dyn Fn(&str) -> Option<&'t Value>, depth: usize) -> bool {
    let Value::Object(obj) = schema else { return false };
    if let Some(Value::String(r)) = obj.find("$ref") {
        return depth < 64 && resolve(r).is_some_and(|t| allows_null_through(t, resolve, depth + 1));
    }
    let by_type = match obj.find("type") {
        Some(Value::String(t)) => Some(t == "null"),
        Some(Value::Array(ts)) => Some(ts.iter().any(|t| *t == "null")),
        _ => None,
    };
    let by_enum = obj.find("enum").and_then(Value::as_array).map(|e| e.contains(&Value::Null));
    let by_const = obj.find("const").map(Value::is_null);
    let by_any_of = obj.find("anyOf").and_then(Value::as_array).map(|bs| bs.iter().any(|b| allows_null_through(b, resolve, depth)));
    let said = [by_type, by_enum, by_const, by_any_of];
    said.iter().any(Option::is_some) && said.iter().all(|s| s.unwrap_or(true))
}

/// Makes a schema also accept `null`.
pub fn widen_nullable(schema: &mut Value) {
    // An anyOf beside a `type`, `enum` or `const` (both hold): a null branch alone would still
    // be refused by them, so the node is one branch and null the other, as a `$ref` is.
    let beside = |o: &JsonObject| o.has("anyOf") && ["type", "enum", "const"].iter().any(|k| o.has(k));
    if let Value::Object(o) = schema {
        if beside(o) {
            if !allows_null(schema) {
                let node = std::mem::take(schema);
                *schema = object([("anyOf", Value::Array(vec![node, object([("type", string("null"))])]))]);
            }
            return;
        }
    }
    let Value::Object(obj) = schema else { return };
    if obj.has("$ref") {
        let reference = std::mem::take(obj);
        obj.put("anyOf", Value::Array(vec![Value::Object(reference), object([("type", string("null"))])]));
        return;
    }
    if let Some(Value::Array(branches)) = obj.find_mut("anyOf") {
        if !branches.iter().any(|b| b.find("type").is_some_and(|t| *t == "null")) {
            branches.push(object([("type", string("null"))]));
        }
        return;
    }
    match obj.find_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = std::mem::take(t);
            obj.put("type", Value::Array(vec![Value::String(t), string("null")]));
        }
        Some(Value::Array(ts)) if !ts.iter().any(|t| *t == "null") => ts.push(string("null")),
        _ => {}
    }
    // A `const` allows its value only: it becomes an enum of it and null (in place of any enum).
    if let Some(c) = obj.take("const") {
        let values = if c.is_null() { vec![c] } else { vec![c, Value::Null] };
        obj.put("enum", Value::Array(values));
    } else if let Some(Value::Array(e)) = obj.find_mut("enum") {
        if !e.contains(&Value::Null) {
            e.push(Value::Null);
        }
    }
}

/// OpenAPI's `nullable` taken off a node: `true` is said the JSON Schema way ([`widen_nullable`]:
/// `null` added to its type, enum or `anyOf`), which strict modes read; `false` says nothing.
/// Returns whether it was `true`.
/// OpenAPI's `nullable` on the root schema goes, said so: a tool's arguments are always an
/// object, never `null` (strict modes would otherwise write the root as `["object","null"]`).
pub(crate) fn drop_root_nullable(root: &mut Value, cx: &mut Cx, rule: &'static str) {
    if let Value::Object(o) = root {
        if o.take("nullable").is_some() {
            cx.change(rule, "`nullable` on the root removed: a tool's arguments are always an object");
        }
    }
}

pub(crate) fn openapi_nullable(obj: &mut JsonObject) -> bool {
    if obj.take("nullable") != Some(Value::Bool(true)) {
        return false;
    }
    let mut node = Value::Object(std::mem::take(obj));
    widen_nullable(&mut node);
    if let Value::Object(o) = node {
        *obj = o;
    }
    true
}

fn fold(obj: &mut JsonObject, notes: &mut Notes, cx: &mut Cx, key: &str, v: &Value) {
    if let Some(hint) = keyword_hint(key, v) {
        notes.add(obj, &format!("({hint})"));
        cx.change("openai/strict-keyword", format!("`{key}` is not supported in strict mode; removed and described ({hint})"));
    } else {
        cx.change("openai/strict-keyword", format!("`{key}` is not supported in strict mode; removed"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use crate::schema::{process_json_schema, Limits};

    fn run(schema: Value, strict: bool) -> (Compiled, Cx) {
        let mut cx = Cx::new(Limits::default());
        let (root, _) = process_json_schema(&schema, &mut cx);
        let opts = SchemaOptions { strict, ..SchemaOptions::default() };
        (compile(root, &opts, &mut cx).unwrap(), cx)
    }

    /// The general path's strict modes write a node's notes in proportion to them (each was
    /// appended by copying the description so far: seconds for 64,000 unknown keywords), in the
    /// order the keywords had.
    #[test]
    fn many_removed_keywords_write_notes_in_proportion() {
        use crate::convert::{convert, ConvertOptions};
        use crate::providers::Provider;
        use crate::schema::DESCRIPTION_BYTES;
        let tools = |n: usize| {
            let mut x = serde_json::Map::new();
            x.insert("type".into(), json!("string"));
            for i in 0..n {
                x.insert(format!("kw{i}"), json!(format!("v{i}")));
            }
            json!([{"name": "t", "inputSchema": {"type": "object", "properties": {"x": x}}}])
        };
        let mut opts = ConvertOptions::default();
        opts.schema.strict = true;
        for provider in [Provider::OpenAi, Provider::Anthropic] {
            let bytes = [1000, 4000].map(|n| {
                DESCRIPTION_BYTES.with(|b| b.set(0));
                let out = convert(tools(n), provider, &opts).unwrap();
                let schema = if provider == Provider::OpenAi { &out.tools[0]["function"]["parameters"] } else { &out.tools[0]["input_schema"] };
                let description = schema["properties"]["x"]["description"].as_str().unwrap();
                assert!(description.starts_with(r#"(kw0: "v0") (kw1: "v1") (kw2: "#), "{provider:?}");
                assert_eq!(description.matches(" (kw").count(), n - 1, "{provider:?}");
                DESCRIPTION_BYTES.with(std::cell::Cell::get)
            });
            assert!(bytes[1] <= 5 * bytes[0], "{provider:?}: {bytes:?} bytes written at 1,000 and 4,000 keywords");
        }
    }

    /// An unsupported `format` beside `nullable: true` that wraps the node (beside an `anyOf`
    /// with a type, or a `$ref`): the format's note stays on the node, which becomes the wrap's
    /// first branch, and no `description: null` is left in it (the note was written on the wrap
    /// and its place in the node left as `null`).
    #[test]
    fn strict_format_note_stays_on_a_node_nullable_wraps() {
        use crate::convert::{convert, convert_json, ConvertOptions};
        use crate::providers::Provider;
        let mut opts = ConvertOptions::default();
        opts.schema.strict = true;
        for (x, description) in [
            (json!({"type":"object","format":"weird-fmt","nullable":true,"anyOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"string"}},"required":["b"]}]}), "(format: weird-fmt)"),
            (json!({"type":"object","description":"hi","format":"weird-fmt","nullable":true,"anyOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"string"}},"required":["b"]}]}), "hi (format: weird-fmt)"),
        ] {
            let tools = json!([{"name":"t","inputSchema":{"type":"object","properties":{"x":x},"required":["x"]}}]);
            for provider in [Provider::OpenAi, Provider::OpenAiResponses] {
                let out = convert(tools.clone(), provider, &opts).unwrap();
                let text = serde_json::to_string(&out.tools[0]).unwrap();
                assert!(!text.contains("\"description\":null"), "{provider:?}: {text}");
                let parameters = if provider == Provider::OpenAi { &out.tools[0]["function"]["parameters"] } else { &out.tools[0]["parameters"] };
                let x = &parameters["properties"]["x"];
                assert_eq!(x["anyOf"][0]["description"], json!(description), "{provider:?}: {x}");
                assert_eq!(x["anyOf"][1], json!({"type":"null"}), "{provider:?}: {x}");
                assert!(x.get("description").is_none(), "{provider:?}: {x}");
                let json = convert_json(&tools.to_string(), provider, &opts).unwrap();
                assert!(!json.contains("\"description\":null"), "{provider:?}: {json}");
            }
        }
    }

    /// An object open through `unevaluatedProperties` (`true`, or a schema for the undeclared
    /// properties) falls back as one open through `additionalProperties` does, in both strict
    /// modes and on both paths, where it was closed and "allowed by omission" was said (s25e F3).
    #[test]
    fn strict_falls_back_for_maps_open_by_unevaluated_properties() {
        use crate::convert::{convert, convert_json, ConvertOptions};
        use crate::providers::Provider;
        let labels = |open: Value| json!({"type":"object","properties":{"labels":{"type":"object","properties":{"env":{"type":"string"}},"unevaluatedProperties":open}},"required":["labels"]});
        for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Bedrock] {
            let mut opts = ConvertOptions::default();
            opts.schema.strict = true;
            for open in [json!({"type":"string"}), json!(true)] {
                let tools = json!([{"name":"t","inputSchema":labels(open.clone())}]);
                let conv = convert(tools.clone(), provider, &opts).unwrap();
                let r = &conv.report.tools[0];
                assert!(r.problems.iter().any(|d| d.rule.ends_with("/strict-fallback") && d.message.contains("an open map (unevaluatedProperties) at /properties/labels")), "{provider:?} {open}: {r:?}");
                assert!(!r.changes.iter().any(|d| d.rule.ends_with("/strict-close")), "{provider:?} {open}: {r:?}");
                assert_eq!(convert_json(&tools.to_string(), provider, &opts).unwrap(), conv.tools.to_string(), "{provider:?} {open}");
            }
            // Closed beside it, or `false`: nothing left open, strict.
            for schema in [labels(json!(false)), json!({"type":"object","properties":{"m":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false,"unevaluatedProperties":true}}})] {
                let tools = json!([{"name":"t","inputSchema":schema.clone()}]);
                let conv = convert(tools.clone(), provider, &opts).unwrap();
                assert!(!conv.report.tools[0].problems.iter().any(|d| d.rule.ends_with("/strict-fallback")), "{provider:?} {schema}: {:?}", conv.report.tools[0]);
                assert_eq!(convert_json(&tools.to_string(), provider, &opts).unwrap(), conv.tools.to_string(), "{provider:?} {schema}");
            }
        }
    }

    /// The limits count what is sent: an optional property's enum with the `null` that makes it
    /// nullable, a `const`'s characters, and an optional `const` as the enum of it and `null` it
    /// becomes; characters, not bytes. Each case one value or character past a limit falls back,
    /// its control (the same schema required, or one value fewer) stays strict; both APIs agree.
    #[test]
    fn strict_limits_count_the_values_sent() {
        let values = |n: usize, len: usize| -> Vec<Value> { (0..n).map(|i| json!(format!("{i:04}{}", "x".repeat(len.saturating_sub(4))))).collect() };
        let one = |sub: Value, required: bool| json!({"type":"object","properties":{"e":sub},"required": if required { json!(["e"]) } else { json!([]) }});
        let many = |k: usize, n: usize, required: bool| {
            let props: serde_json::Map<String, Value> = (0..k).map(|j| (format!("p{j}"), json!({"type":"string","enum":values(n, 5)}))).collect();
            let names: Vec<String> = if required { (0..k).map(|j| format!("p{j}")).collect() } else { vec![] };
            json!({"type":"object","properties":props,"required":names})
        };
        let cases = [
            // 1,000 values, required or optional: 1,000 sent (the optional one's null a branch
            // beside it); 1,001 are past the limit either way.
            (one(json!({"type":"string","enum":values(1000, 5)}), true), true),
            (one(json!({"type":"string","enum":values(1000, 5)}), false), true),
            (one(json!({"type":"string","enum":values(1001, 5)}), false), false),
            // Ten optional enums of 100: 1,010 sent, the reason saying which 10 strict mode added.
            (many(10, 100, true), true),
            (many(10, 100, false), false),
            // A const of 120,001 characters counts as an enum value's characters would.
            (one(json!({"type":"string","const":"c".repeat(120_001)}), true), false),
            (one(json!({"type":"string","const":"c".repeat(119_000)}), true), true),
            // Characters, not UTF-8 bytes: 70,000 of them in 140,000 bytes pass.
            (one(json!({"type":"string","const":"\u{e9}".repeat(70_000)}), true), true),
            (one(json!({"type":"string","enum":["\u{e9}".repeat(70_000)]}), true), true),
            (one(json!({"type":"string","const":"\u{e9}".repeat(120_001)}), true), false),
            // 250 strings of 73 characters (18,250): 250 values, optional too (its null beside
            // the enum); 251 are past the large enums' 15,000 characters.
            (one(json!({"type":"string","enum":values(250, 73)}), true), true),
            (one(json!({"type":"string","enum":values(250, 73)}), false), true),
            (one(json!({"type":"string","enum":values(251, 73)}), false), false),
        ];
        for (i, (schema, strict)) in cases.into_iter().enumerate() {
            let (c, cx) = run(schema.clone(), true);
            assert_eq!(c.strict, Some(strict), "case {i}: {:?}", cx.problems);
            if !strict {
                assert!(cx.problems.iter().any(|d| d.rule == "openai/strict-fallback"), "case {i}: {:?}", cx.problems);
            }
            if i == 4 {
                assert!(cx.problems.iter().any(|d| d.message.contains("1010 enum values (10 of them added to make optional properties nullable)")), "case {i}: {:?}", cx.problems);
            }
            let tools = json!([{"name":"t","inputSchema":schema}]);
            let mut opts = crate::convert::ConvertOptions::default();
            opts.schema.strict = true;
            let out = crate::convert::convert(tools.clone(), crate::providers::Provider::OpenAi, &opts).unwrap();
            assert_eq!(out.tools[0]["function"]["strict"], json!(strict), "case {i}");
            assert_eq!(crate::convert::convert_json(&tools.to_string(), crate::providers::Provider::OpenAi, &opts).unwrap(), out.tools.to_string(), "case {i}");
        }
    }

    /// A `$ref` loop that never reaches a schema, directly (`A` to `A`) or through a one-branch
    /// `allOf`, cannot be strict: sent without strict, as the direct form was. Sent as it is
    /// (without strict), it is reported (`refs/unresolvable`); both APIs agree.
    #[test]
    fn a_ref_loop_without_a_schema_is_not_strict_and_is_reported() {
        // Annotations beside a reference make no schema of it (an alias, as the inlining reads it).
        for a in [
            json!({"$ref":"#/$defs/A"}),
            json!({"allOf":[{"$ref":"#/$defs/A"}]}),
            json!({"anyOf":[{"$ref":"#/$defs/B"}]}),
            json!({"$ref":"#/$defs/A","title":"T"}),
            json!({"description":"d","allOf":[{"$ref":"#/$defs/B","title":"T"}]}),
        ] {
            let schema = json!({"type":"object","properties":{"url":{"$ref":"#/$defs/A"}},"$defs":{"A":a,"B":{"$ref":"#/$defs/A"}}});
            let (c, cx) = run(schema.clone(), true);
            assert_eq!(c.strict, Some(false), "{a}");
            assert!(cx.problems.iter().any(|d| d.rule == "openai/strict-fallback" && d.message.contains("never reach a schema")), "{a}: {:?}", cx.problems);
            let (c, cx) = run(schema.clone(), false);
            assert_eq!(c.strict, Some(false), "{a}");
            assert!(cx.problems.iter().any(|d| d.rule == "refs/unresolvable" && d.path == "/properties/url" && d.message.contains("never reach a schema")), "{a}: {:?}", cx.problems);
            let tools = json!([{"name":"t","inputSchema":schema}]);
            for (provider, strict) in [(crate::providers::Provider::OpenAi, true), (crate::providers::Provider::OpenAi, false), (crate::providers::Provider::Anthropic, false)] {
                let mut opts = crate::convert::ConvertOptions::default();
                opts.schema.strict = strict;
                let out = crate::convert::convert(tools.clone(), provider, &opts).unwrap();
                assert!(out.report.tools[0].problems.iter().any(|d| d.rule == "refs/unresolvable"), "{provider:?} {a}: {:?}", out.report.tools[0].problems);
                assert_eq!(crate::convert::convert_json(&tools.to_string(), provider, &opts).unwrap(), out.tools.to_string(), "{provider:?} {a}");
            }
        }
        // A chain that reaches a schema is no loop.
        let (c, cx) = run(json!({"type":"object","properties":{"u":{"$ref":"#/$defs/A"}},"required":["u"],"additionalProperties":false,
            "$defs":{"A":{"allOf":[{"$ref":"#/$defs/B"}]},"B":{"type":"string"}}}), false);
        assert_eq!(c.strict, Some(false));
        assert!(!cx.problems.iter().any(|d| d.rule == "refs/unresolvable"), "{:?}", cx.problems);
    }

    /// A chain of references however long that reaches a schema is no loop: not reported, and
    /// sent so that it reaches its schema; strict where the schema is recursive (the definitions
    /// form names the chain's end, past 32 references too); a loop of the same length is
    /// reported. Both APIs agree.
    #[test]
    fn a_long_ref_chain_that_reaches_a_schema_is_no_loop() {
        let schema = |n: usize, end: Value| {
            let mut defs: serde_json::Map<String, Value> = (0..n).map(|i| (format!("A{i}"), json!({"$ref": format!("#/$defs/A{}", i + 1)}))).collect();
            defs.insert(format!("A{n}"), end);
            defs.insert("Node".into(), json!({"type":"object","properties":{"next":{"anyOf":[{"$ref":"#/$defs/Node"},{"type":"null"}]}},"required":["next"],"additionalProperties":false}));
            json!({"type":"object","properties":{"x":{"$ref":"#/$defs/A0"},"node":{"$ref":"#/$defs/Node"}},"required":["x","node"],"additionalProperties":false,"$defs":defs})
        };
        // Where the sent schema's `x` leads, following its references.
        let end_of_x = |sent: &Value| {
            let mut x = &sent["properties"]["x"];
            for _ in 0..=100 {
                match x.get("$ref").and_then(Value::as_str) {
                    Some(r) => x = lookup(sent, r).unwrap(),
                    None => break,
                }
            }
            x.clone()
        };
        let string = json!({"type":"string"});
        let (c, cx) = run(schema(40, string.clone()), true);
        assert!(cx.problems.is_empty(), "{:?}", cx.problems);
        assert_eq!(c.strict, Some(true));
        assert_eq!(end_of_x(c.schema.as_ref().unwrap()), string);
        let (c, cx) = run(schema(100, string.clone()), false);
        assert!(cx.problems.is_empty(), "{:?}", cx.problems);
        assert_eq!(end_of_x(c.schema.as_ref().unwrap()), string);
        // (Strict inlines first, which a chain of 64 references exceeds the nesting limit in.)
        for (n, strict) in [(10, true), (100, false)] {
            let (c, cx) = run(schema(n, json!({"$ref":"#/$defs/A0"})), strict);
            assert_eq!(c.strict, Some(false));
            let looped = cx.problems.iter().filter(|d| d.rule == "refs/unresolvable" && d.message.contains("never reach a schema")).count();
            assert!(looped > 0, "{:?}", cx.problems);
        }
        for (end, looped) in [(string.clone(), false), (json!({"$ref":"#/$defs/A0"}), true)] {
            let tools = json!([{"name":"t","inputSchema":schema(100, end)}]);
            for provider in [crate::providers::Provider::OpenAi, crate::providers::Provider::Anthropic] {
                let opts = crate::convert::ConvertOptions::default();
                let out = crate::convert::convert(tools.clone(), provider, &opts).unwrap();
                let reported = out.report.tools[0].problems.iter().filter(|d| d.rule == "refs/unresolvable").count();
                assert_eq!(reported > 0, looped, "{provider:?}: {:?}", out.report.tools[0].problems);
                assert_eq!(crate::convert::convert_json(&tools.to_string(), provider, &opts).unwrap(), out.tools.to_string(), "{provider:?}");
            }
        }
    }

    /// An `allOf` merged for strict mode reports a branch's `nullable` that is no boolean
    /// (`schema/bad-keyword-value`), as other values of the wrong kind, not dropped silently.
    #[test]
    fn strict_all_of_reports_a_nullable_that_is_no_boolean() {
        let (c, cx) = run(json!({"type":"object","properties":{"port":{"allOf":[{"type":"string","nullable":"yes"},{"type":"string"}]}},"required":["port"]}), true);
        assert_eq!(c.strict, Some(true));
        assert_eq!(c.schema.unwrap()["properties"]["port"], json!({"type":"string"}));
        assert!(cx.changes.iter().any(|d| d.rule == "schema/bad-keyword-value" && d.path == "/properties/port/allOf/0/nullable"), "{:?}", cx.changes);
    }

    /// A discriminated union whose variants share a field: `prepareArguments` maps a value by
    /// the variant it is of (its `kind`), and a union nothing tells apart is reported.
    #[test]
    fn strict_any_of_plans_map_a_value_by_its_branch() {
        let u = json!({"anyOf":[
            {"type":"object","properties":{"kind":{"const":"a"},"x":{"type":["string","null"]}},"required":["kind","x"],"additionalProperties":false},
            {"type":"object","properties":{"kind":{"const":"b"},"x":{"type":"string"}},"required":["kind"],"additionalProperties":false}]});
        let (c, cx) = run(json!({"type":"object","properties":{"u":u},"required":["u"],"additionalProperties":false}), true);
        assert_eq!(c.strict, Some(true));
        assert_eq!(c.plan.apply(json!({"u":{"kind":"a","x":null}})), json!({"u":{"kind":"a","x":null}}));
        assert_eq!(c.plan.apply(json!({"u":{"kind":"b","x":null}})), json!({"u":{"kind":"b"}}));
        assert!(!cx.problems.iter().any(|d| d.rule == "openai/strict-anyof-ambiguous"), "{:?}", cx.problems);
        // Without `kind`, `{x: null}` is either branch's: reported.
        let u = json!({"anyOf":[
            {"type":"object","properties":{"x":{"type":["string","null"]}},"required":["x"]},
            {"type":"object","properties":{"x":{"type":"string"}}}]});
        let (c, cx) = run(json!({"type":"object","properties":{"u":u},"required":["u"]}), true);
        assert_eq!(c.strict, Some(true));
        let p: Vec<_> = cx.problems.iter().filter(|d| d.rule == "openai/strict-anyof-ambiguous").collect();
        assert_eq!(p.len(), 1, "{:?}", cx.problems);
        assert_eq!(p[0].path, "/properties/u");
        assert!(p[0].message.starts_with("branches 0 and 1 of the anyOf"), "{}", p[0].message);
        // The plan and its fits survive the name map's JSON.
        assert_eq!(ArgPlan::from_value(&c.plan.to_value()).unwrap(), c.plan);
    }

    /// A union branch kept as a reference (a recursive schema) fits what its definition does
    /// as strict mode has it: a value of the other variant (its `kind`) is mapped by that
    /// variant and keeps its required null, and nothing is said to be ambiguous; a definition
    /// nothing tells apart from the other branch still is.
    #[test]
    fn a_reference_branch_fits_as_its_definition() {
        let node = json!({"type":"object","properties":{"kind":{"const":"node"},"x":{"type":"string"},"child":{"$ref":"#/$defs/Node"}},"required":["kind"]});
        let b = json!({"type":"object","properties":{"kind":{"const":"b"},"x":{"type":["string","null"]}},"required":["kind","x"]});
        let schema = json!({"type":"object","$defs":{"Node":node},"properties":{"u":{"anyOf":[{"$ref":"#/$defs/Node"},b]}},"required":["u"]});
        let (c, cx) = run(schema.clone(), true);
        assert!(c.strict == Some(true) || c.schema.as_ref().is_some_and(|s| s.get("$defs").is_some()), "{:?}", c.schema);
        let plan = c.plan;
        assert_eq!(plan.apply(json!({"u":{"kind":"b","x":null}})), json!({"u":{"kind":"b","x":null}}));
        assert_eq!(plan.apply(json!({"u":{"kind":"node","x":null,"child":null}})), json!({"u":{"kind":"node"}}));
        assert!(!cx.problems.iter().any(|d| d.rule == "openai/strict-anyof-ambiguous"), "{:?}", cx.problems);
        let fit = plan.properties.get("u").unwrap().any_of[0].fit.as_deref().unwrap();
        assert_eq!(fit.property("kind").map(|f| f.values.clone()), Some(vec![json!("node")]));
        // Without its `kind`, the definition may be either branch's value: said, where the union is.
        let loose = json!({"type":"object","properties":{"kind":{"type":"string"},"x":{"type":"string"}},"required":["kind"]});
        let tree = json!({"type":"object","properties":{"sub":{"$ref":"#/$defs/Tree"}}});
        let schema = json!({"type":"object","$defs":{"Node":loose,"Tree":tree},"properties":{"u":{"anyOf":[{"$ref":"#/$defs/Node"},b]},"t":{"$ref":"#/$defs/Tree"}},"required":["u"]});
        let (_, cx) = run(schema, true);
        let said: Vec<_> = cx.problems.iter().filter(|d| d.rule == "openai/strict-anyof-ambiguous").map(|d| d.path.as_str()).collect();
        assert_eq!(said, ["/properties/u"], "{:?}", cx.problems);
        // The JSON API's two paths agree.
        let tools = json!([{"name":"t","inputSchema":schema_of_f3()}]);
        let mut opts = crate::convert::ConvertOptions::default();
        opts.schema.strict = true;
        let general = crate::convert::convert(tools.clone(), crate::providers::Provider::OpenAi, &opts).unwrap().tools.to_string();
        assert_eq!(crate::convert::convert_json(&tools.to_string(), crate::providers::Provider::OpenAi, &opts).unwrap(), general);
    }

    fn schema_of_f3() -> Value {
        let node = json!({"type":"object","properties":{"kind":{"const":"node"},"x":{"type":"string"},"child":{"$ref":"#/$defs/Node"}},"required":["kind"]});
        let b = json!({"type":"object","properties":{"kind":{"const":"b"},"x":{"type":["string","null"]}},"required":["kind","x"]});
        json!({"type":"object","$defs":{"Node":node},"properties":{"u":{"anyOf":[{"$ref":"#/$defs/Node"},b]}},"required":["u"]})
    }

    #[test]
    fn missing_properties_and_items_are_added() {
        // https://github.com/openai/openai-agents-python/issues/449, https://github.com/mark3labs/mcphost/issues/35
        let (c, _) = run(json!({"type":"object","properties":{"texts":{"type":"array"},"o":{"type":"object"}}}), false);
        let s = c.schema.unwrap();
        assert_eq!(s["properties"]["texts"]["items"], json!({}));
        assert_eq!(s["properties"]["o"]["properties"], json!({}));
        assert_eq!(c.strict, Some(false));
        // A tuple, draft 4's or 2020-12's: `items` too ("array schema missing items" otherwise).
        for tuple in [json!({"type":"array","items":[{"type":"string"},{"type":"integer"}]}), json!({"type":"array","prefixItems":[{"type":"string"}]})] {
            let (c, cx) = run(json!({"type":"object","properties":{"tup":tuple}}), false);
            let s = c.schema.unwrap();
            assert_eq!(s["properties"]["tup"]["items"], json!({}), "{s}");
            assert!(s["properties"]["tup"]["prefixItems"].is_array());
            assert!(cx.changes.iter().any(|d| d.rule == "schema/add-items" && d.path == "/properties/tup"), "{:?}", cx.changes);
            let text = crate::convert::convert_json(&json!([{"name": "t", "inputSchema": {"type":"object","properties":{"tup":tuple}}}]).to_string(), crate::providers::Provider::OpenAi, &crate::convert::ConvertOptions::default()).unwrap();
            assert!(text.contains(r#""items":{}"#), "the JSON API too: {text}");
        }
    }

    /// A tuple closed by `unevaluatedItems: false` stays closed: the `items` added for OpenAI
    /// says what `unevaluatedItems` said of the items past the tuple.
    #[test]
    fn added_items_keep_unevaluated_items() {
        for (unevaluated, items) in [(json!(false), json!(false)), (json!({"type":"integer"}), json!({"type":"integer"}))] {
            let (c, cx) = run(json!({"type":"object","properties":{"t":{"type":"array","prefixItems":[{"type":"string"}],"unevaluatedItems":unevaluated}}}), false);
            assert_eq!(c.schema.unwrap()["properties"]["t"]["items"], items);
            assert!(cx.changes.iter().any(|d| d.rule == "schema/add-items" && d.message.contains("unevaluatedItems")), "{:?}", cx.changes);
        }
    }

    /// `$ref`s fanning out (`allOf` of four references to the next level) are each evaluated
    /// once for `unevaluatedItems`: 15 levels (4^15 paths) keep the tuple closed, 30 (past
    /// `$ref`s' depth) leave it unknown, reported; both convert at once.
    #[test]
    fn unevaluated_items_beside_references_fanning_out() {
        for (levels, items) in [(15, json!(false)), (30, json!({}))] {
            let mut defs = serde_json::Map::new();
            for i in 0..levels {
                defs.insert(format!("d{i}"), json!({"allOf": vec![json!({"$ref": format!("#/$defs/d{}", i + 1)}); 4]}));
            }
            defs.insert(format!("d{levels}"), json!({"prefixItems": [{"type": "string"}]}));
            let schema = json!({"type":"object","properties":{"u":{"type":"array","$ref":"#/$defs/d0","unevaluatedItems":false}},"$defs":defs});
            let (c, cx) = run(schema.clone(), false);
            assert_eq!(c.schema.unwrap()["properties"]["u"]["items"], items, "{levels}");
            assert_eq!(cx.problems.iter().any(|d| d.rule == "schema/add-items"), levels == 30, "{:?}", cx.problems);
            let text = crate::convert::convert_json(&json!([{"name": "t", "inputSchema": schema}]).to_string(), crate::providers::Provider::OpenAi, &crate::convert::ConvertOptions::default());
            assert!(text.is_ok(), "{text:?}");
        }
    }

    /// A draft-7 schema whose tuples are rewritten as 2020-12's `prefixItems` loses its
    /// `$schema` (read as draft 7, `prefixItems` is unknown); one that needs no rewrite keeps it.
    #[test]
    fn draft7_schema_goes_when_its_tuples_are_rewritten() {
        let draft7 = "http://json-schema.org/draft-07/schema#";
        let (c, cx) = run(json!({"$schema":draft7,"type":"object","properties":{"t":{"type":"array","items":[{"type":"string"}],"additionalItems":false}}}), false);
        let s = c.schema.unwrap();
        assert!(s.get("$schema").is_none(), "{s}");
        assert_eq!(s["properties"]["t"], json!({"type":"array","prefixItems":[{"type":"string"}],"items":false}));
        assert!(cx.changes.iter().any(|d| d.rule == "schema/draft4-schema"), "{:?}", cx.changes);
        let (c, _) = run(json!({"$schema":draft7,"type":"object","properties":{"t":{"type":"array","items":{"type":"string"}}}}), false);
        assert_eq!(c.schema.unwrap()["$schema"], draft7);
    }

    /// The rewrite in 2020-12's terms writes draft 7's `dependencies` in its 2020-12 forms, and
    /// a draft 4-7 schema's constraints beside a `$ref` (which those drafts ignore, and ajv and
    /// drafts 2019-09+ apply) stay constraints, reported where they are, `dependencies` included.
    #[test]
    fn draft7_dependencies_and_ref_siblings_keep_their_meaning() {
        let draft7 = "http://json-schema.org/draft-07/schema#";
        let schema = json!({"$schema":draft7,"type":"object","definitions":{"Id":{"type":"integer"}},
            "properties":{"pair":{"type":"array","items":[{"type":"string"},{"type":"integer"}]},"a":{"type":"string"},"b":{"type":"string"},
                "id":{"$ref":"#/definitions/Id","maximum":5,"description":"the id"}},
            "dependencies":{"a":["b"],"b":{"properties":{"c":{"type":"string"},"d":{"$ref":"#/definitions/Id","minimum":2}},"required":["c"]}}});
        let (c, cx) = run(schema.clone(), false);
        let s = c.schema.unwrap();
        assert!(s.get("$schema").is_none() && s.get("dependencies").is_none(), "{s}");
        assert_eq!(s["dependentRequired"], json!({"a":["b"]}));
        assert_eq!(s["dependentSchemas"]["b"]["required"], json!(["c"]));
        assert_eq!(s["dependentSchemas"]["b"]["properties"]["d"], json!({"$ref":"#/definitions/Id","minimum":2}));
        assert_eq!(s["properties"]["id"], json!({"$ref":"#/definitions/Id","maximum":5,"description":"the id"}));
        let said = |rule: &str| cx.changes.iter().filter(|d| d.rule == rule).map(|d| (d.path.clone(), d.message.clone())).collect::<Vec<_>>();
        assert_eq!(said("schema/draft4-dependencies").len(), 1, "{:?}", cx.changes);
        let siblings = said("schema/draft7-ref-siblings");
        assert_eq!(siblings.iter().map(|s| s.0.as_str()).collect::<Vec<_>>(), ["/properties/id", "/dependencies/b/properties/d"], "{:?}", cx.changes);
        assert!(siblings[0].1.starts_with("`maximum` beside `$ref` kept as constraints"), "{}", siblings[0].1);
        assert!(cx.problems.is_empty(), "{:?}", cx.problems);
        // Where `$ref` is inlined (strict mode), the bound is combined with the target's.
        let (c, _) = run(schema, true);
        let s = c.schema.unwrap();
        assert_eq!(s["properties"]["id"]["maximum"], 5, "{s}");
        // Under draft 2020-12 (no `$schema`), siblings are constraints, said nowhere.
        let (c, cx) = run(json!({"type":"object","$defs":{"Id":{"type":"integer"}},"properties":{"id":{"$ref":"#/$defs/Id","maximum":5}}}), false);
        assert_eq!(c.schema.unwrap()["properties"]["id"]["maximum"], 5);
        assert!(!cx.changes.iter().any(|d| d.rule == "schema/draft7-ref-siblings"), "{:?}", cx.changes);
        // Both paths of the JSON API agree, and keep the bound.
        for strict in [false, true] {
            let tools = json!([{"name":"t","inputSchema":{"$schema":draft7,"type":"object","definitions":{"Id":{"type":"integer"}},"properties":{"id":{"$ref":"#/definitions/Id","maximum":5}}}}]);
            let mut opts = crate::convert::ConvertOptions::default();
            opts.schema.strict = strict;
            for provider in [crate::providers::Provider::OpenAi, crate::providers::Provider::Anthropic, crate::providers::Provider::Gemini] {
                let general = crate::convert::convert(tools.clone(), provider, &opts).unwrap().tools.to_string();
                assert!(general.contains("maximum") || general.contains("at most 5"), "{provider:?}: {general}");
                assert_eq!(crate::convert::convert_json(&tools.to_string(), provider, &opts).unwrap(), general, "{provider:?}");
            }
        }
    }

    /// Draft 3 is a draft whose `$ref` ignores its siblings too, and its `dependencies` may name
    /// one property (a string): written as `dependentRequired`, never as a `dependentSchemas`
    /// entry that is no schema; a value that is neither goes, said.
    #[test]
    fn draft3_dependencies_are_names_or_schemas() {
        let draft3 = "http://json-schema.org/draft-03/schema#";
        let schema = json!({"$schema":draft3,"type":"object","definitions":{"Id":{"type":"integer"}},
            "properties":{"pair":{"type":"array","items":[{"type":"string"}]},"a":{"type":"string"},"b":{"type":"string"},"id":{"$ref":"#/definitions/Id","maximum":5}},
            "dependencies":{"a":"b","b":5,"id":{"required":["a"]}}});
        let (c, cx) = run(schema, false);
        let s = c.schema.unwrap();
        assert!(s.get("$schema").is_none() && s.get("dependencies").is_none(), "{s}");
        assert_eq!(s["dependentRequired"], json!({"a":["b"]}));
        assert_eq!(s["dependentSchemas"], json!({"id":{"required":["a"]}}));
        assert!(cx.changes.iter().any(|d| d.rule == "schema/draft4-dependencies" && d.path == "/dependencies" && d.message.contains("\"b\" is number")), "{:?}", cx.changes);
        assert!(cx.changes.iter().any(|d| d.rule == "schema/draft4-schema" && d.message.contains("draft 3 to 7")), "{:?}", cx.changes);
        assert!(cx.changes.iter().any(|d| d.rule == "schema/draft7-ref-siblings" && d.path == "/properties/id"), "{:?}", cx.changes);
    }

    /// Draft 3's `divisibleBy`, `extends` and `disallow`, which no later draft (and no provider)
    /// reads: written as `multipleOf`, `allOf` and `not`, each reported, and the `$schema` goes
    /// (the schema is in draft 2020-12's terms); `required: true` on a property lifted, nested
    /// too. Without draft 3's `$schema` they are no keywords of the schema's draft, and stay.
    #[test]
    fn draft3_keywords_are_written_in_later_terms() {
        let draft3 = "http://json-schema.org/draft-03/schema#";
        let schema = json!({"$schema":draft3,"type":"object","properties":{
            "b":{"type":"integer","divisibleBy":2},
            "e":{"extends":{"type":"string"}},
            "f":{"disallow":"integer"},
            "g":{"type":["integer","string"],"disallow":["string",{"maximum":0}],"divisibleBy":3,"multipleOf":2},
            "h":{"type":"number","extends":[{"minimum":1},{"maximum":5}],"disallow":"any"},
            "o":{"type":"object","properties":{"x":{"type":"string","required":true},"y":{"extends":{"divisibleBy":0}}}},
        }});
        let (c, cx) = run(schema.clone(), false);
        let s = c.schema.unwrap();
        assert!(s.get("$schema").is_none(), "{s}");
        let p = &s["properties"];
        assert_eq!(p["b"], json!({"type":"integer","multipleOf":2}));
        assert_eq!(p["e"], json!({"allOf":[{"type":"string"}]}));
        assert_eq!(p["f"], json!({"not":{"type":"integer"}}));
        assert_eq!(p["g"], json!({"type":["integer","string"],"multipleOf":2,"not":{"anyOf":[{"type":"string"},{"maximum":0}]},"allOf":[{"multipleOf":3}]}));
        assert_eq!(p["h"], json!({"type":"number","allOf":[{"minimum":1},{"maximum":5}],"not":{}}));
        assert_eq!(p["o"]["required"], json!(["x"]));
        assert_eq!(p["o"]["properties"]["y"], json!({"allOf":[{}]}));
        let said: Vec<&str> = cx.changes.iter().filter(|d| d.rule == "schema/draft3-keyword").map(|d| d.path.as_str()).collect();
        assert_eq!(
            said,
            ["/properties/b/divisibleBy", "/properties/e/extends", "/properties/f/disallow", "/properties/g/divisibleBy", "/properties/g/disallow", "/properties/h/extends", "/properties/h/disallow", "/properties/o/properties/y/extends", "/properties/o/properties/y/allOf/0/divisibleBy"],
            "{:?}",
            cx.changes
        );
        assert!(cx.changes.iter().any(|d| d.rule == "schema/draft4-schema"), "{:?}", cx.changes);
        assert!(cx.changes.iter().any(|d| d.rule == "schema/draft3-required" && d.path == "/properties/o/properties/x"), "{:?}", cx.changes);
        // Under another draft, these are no keywords: left as they are.
        let mut later = schema;
        later["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
        let (c, cx) = run(later, false);
        assert_eq!(c.schema.unwrap()["properties"]["b"], json!({"type":"integer","divisibleBy":2}));
        assert!(!cx.changes.iter().any(|d| d.rule == "schema/draft3-keyword"));
    }

    /// Draft 3's union type: a `type` list may hold schemas beside type names, and the value
    /// is of one of the types or matches one of the schemas. It was normalised to its names
    /// (the integer alternative silently gone) and the draft-03 `$schema` stayed.
    #[test]
    fn draft3_type_lists_with_schemas_are_written_as_any_of() {
        let draft3 = "http://json-schema.org/draft-03/schema#";
        let schema = json!({"$schema":draft3,"type":"object","properties":{
            "a":{"type":["string",{"type":"integer","divisibleBy":2}]},
            "b":{"type":["String","null",7,"foo",{"minimum":1}],"anyOf":[{"maxLength":3},{"minimum":5}],"description":"d"},
            "c":{"type":["any",{"type":"integer"}]},
            "d":{"type":["string","integer"]},
        }});
        let (c, cx) = run(schema, false);
        let s = c.schema.unwrap();
        assert!(s.get("$schema").is_none(), "{s}");
        let p = &s["properties"];
        assert_eq!(p["a"], json!({"anyOf":[{"type":"string"},{"type":"integer","multipleOf":2}]}));
        assert_eq!(p["b"], json!({"anyOf":[{"maxLength":3},{"minimum":5}],"description":"d","allOf":[{"anyOf":[{"type":"string"},{"type":"null"},{"minimum":1}]}]}));
        assert_eq!(p["c"], json!({}));
        assert_eq!(p["d"], json!({"type":["string","integer"]}), "a list of names only stays a list");
        let said: Vec<&str> = cx.changes.iter().filter(|d| d.rule == "schema/draft3-keyword").map(|d| d.path.as_str()).collect();
        assert_eq!(said, ["/properties/a/type", "/properties/a/anyOf/1/divisibleBy", "/properties/b/type", "/properties/c/type"], "{:?}", cx.changes);
        let b = cx.changes.iter().find(|d| d.path == "/properties/b/type").unwrap();
        assert!(b.message.contains("7") && b.message.contains("\"foo\""), "{}", b.message);
        assert!(cx.changes.iter().any(|d| d.rule == "schema/type-case" && d.path == "/properties/b/allOf/0/anyOf/0"), "{:?}", cx.changes);
    }

    #[test]
    fn malformed_property_value_is_replaced() {
        // https://github.com/smallmain/vscode-unify-chat-provider/issues/162
        let (c, cx) = run(json!({"type":"object","properties":{"type":"object","a":{"type":"string"}}}), false);
        assert_eq!(c.schema.unwrap()["properties"]["type"], json!({}));
        assert!(cx.changes.iter().any(|d| d.rule == "schema/bad-property-schema" && d.path == "/properties/type"));
    }

    #[test]
    fn strict_widens_optionals_to_nullable() {
        // https://github.com/coder/xum/pull/4206: optional params forced into required need null
        let (c, cx) = run(
            json!({"type":"object","properties":{"id":{"type":"string"},"limit":{"type":"integer","default":10}},"required":["id"]}),
            true,
        );
        let s = c.schema.unwrap();
        assert_eq!(c.strict, Some(true));
        assert_eq!(s["required"], json!(["id", "limit"]));
        assert_eq!(s["additionalProperties"], json!(false));
        assert_eq!(s["properties"]["limit"]["type"], json!(["integer", "null"]));
        assert!(s["properties"]["limit"]["description"].as_str().unwrap().contains("default: 10"));
        assert_eq!(c.plan.null_means_absent, vec!["limit".to_string()]);
        assert!(cx.changes.iter().any(|d| d.rule == "openai/strict-nullable"));
        assert_eq!(c.plan.apply(json!({"id":"x","limit":null})), json!({"id":"x"}));
    }

    /// OpenAPI's `nullable: true` allows `null`: strict mode reads JSON Schema, so it is said as
    /// a `null` type (or enum value), not folded into the description.
    #[test]
    fn null_is_taken_beside_an_anyof_with_a_type_enum_or_const() {
        // An optional property (null means absent) and OpenAPI's nullable, each with an anyOf
        // beside a type or an enum: null was added to the anyOf only, which the type refused (pE F2).
        let (c, cx) = run(
            json!({"type":"object","properties":{
                "o":{"type":"integer","anyOf":[{"type":"number"},{"type":"string"}]},
                "e":{"enum":["a",1],"anyOf":[{"type":"string"},{"type":"integer"}]},
                "n":{"type":"string","nullable":true,"anyOf":[{"type":"string","format":"date"},{"type":"string","format":"date-time"}]},
                "t":{"type":["integer","null"],"anyOf":[{"type":"integer"},{"type":"null"}]}},
                "required":["n","t"]}),
            true,
        );
        assert_eq!(c.strict, Some(true), "{:?}", cx.problems);
        let p = &c.schema.unwrap()["properties"];
        for k in ["o", "e", "n"] {
            let any = p[k]["anyOf"].as_array().unwrap_or_else(|| panic!("{k}: {}", p[k]));
            assert_eq!(any.len(), 2, "{k}: {}", p[k]);
            assert_eq!(any[1], json!({"type": "null"}), "{k}");
            assert!(any[0].get("anyOf").is_some(), "{k}: the node kept whole as the other branch");
        }
        // One that takes null already gets no second null (its type goes: its branches say it).
        assert_eq!(p["t"], json!({"anyOf":[{"type":"integer"},{"type":"null"}]}));
    }

    #[test]
    fn strict_writes_openapi_nullable_as_a_null_type() {
        let (c, cx) = run(
            json!({"type":"object","properties":{"s":{"type":"string","nullable":true},"e":{"type":"string","nullable":true,"enum":["a",null]},
                   "k":{"type":"string","nullable":true,"enum":["a","b"]},"f":{"type":"integer","nullable":false}},"required":["s","e","k","f"]}),
            true,
        );
        assert_eq!(c.strict, Some(true), "{:?}", cx.problems);
        let p = &c.schema.unwrap()["properties"];
        assert_eq!(p["s"], json!({"type":["string","null"]}));
        assert_eq!(p["e"], json!({"type":["string","null"],"enum":["a",null]}));
        assert_eq!(p["k"], json!({"type":["string","null"],"enum":["a","b",null]}));
        assert_eq!(p["f"], json!({"type":"integer"}));
        assert!(cx.changes.iter().any(|d| d.rule == "openai/strict-keyword" && d.message.contains("nullable")), "{:?}", cx.changes);
        // Claude's strict mode too.
        let mut cx = Cx::new(Limits::default());
        let (root, _) = process_json_schema(&json!({"type":"object","properties":{"s":{"type":"string","nullable":true}},"required":["s"]}), &mut cx);
        let c = crate::providers::anthropic::compile(root, &SchemaOptions { strict: true, ..SchemaOptions::default() }, &mut cx).unwrap();
        assert_eq!(c.strict, Some(true));
        assert_eq!(c.schema.unwrap()["properties"]["s"], json!({"type":["string","null"]}));
    }

    /// An optional property that already allows null is made required like any other, and its
    /// null is taken for "absent": that loses the null the user's schema allowed, and the report
    /// says so, naming the property.
    #[test]
    fn strict_reports_optional_properties_whose_null_is_lost() {
        let (c, cx) = run(
            json!({"type":"object","properties":{"t":{"type":["string","null"]},"a":{"anyOf":[{"type":"string"},{"type":"null"}]},
                   "e":{"enum":["x",null]},"c":{"const":null},"n":{"type":"string","nullable":true},"plain":{"type":"string"},
                   "narrow":{"type":["string","null"],"enum":["x"]},"r":{"type":["string","null"]}},"required":["r"]}),
            true,
        );
        assert_eq!(c.strict, Some(true));
        let mut named: Vec<&str> = cx.problems.iter().filter(|d| d.rule == "openai/strict-null-absent").map(|d| d.path.as_str()).collect();
        named.sort_unstable();
        assert_eq!(named, ["/properties/a", "/properties/c", "/properties/e", "/properties/n", "/properties/t"]);
        // With a default of null, absent and null are one to the server: nothing is lost.
        let (_, cx) = run(json!({"type":"object","properties":{"d":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null}}}), true);
        assert!(!cx.problems.iter().any(|d| d.rule == "openai/strict-null-absent"), "{:?}", cx.problems);
    }

    /// The same of a recursive schema, whose references stay in `$defs`: an optional property
    /// that allows null through its definition loses that null as an inline one does, at the
    /// root and within a definition; one whose definition takes no null, or whose default is
    /// null, is not named.
    #[test]
    fn strict_reports_optional_references_whose_null_is_lost() {
        let (c, cx) = run(
            json!({"type":"object","properties":{"list":{"$ref":"#/$defs/List"},"node":{"$ref":"#/$defs/Node"},
                   "cleared":{"$ref":"#/$defs/List","default":null}},
                   "$defs":{"List":{"anyOf":[{"type":"null"},{"type":"object","properties":{"head":{"type":"integer"},"tail":{"$ref":"#/$defs/List"}},"required":["head","tail"]}]},
                            "Nullish":{"type":["integer","null"]},
                            "Node":{"type":"object","properties":{"alias":{"$ref":"#/$defs/Nullish"},"note":{"type":["string","null"]},
                                    "next":{"$ref":"#/$defs/Node"}}}}}),
            true,
        );
        assert_eq!(c.strict, Some(true), "{:?}", cx.problems);
        assert_eq!(c.schema.unwrap()["properties"]["list"], json!({"anyOf":[{"$ref":"#/$defs/List"},{"type":"null"}]}));
        let mut named: Vec<&str> = cx.problems.iter().filter(|d| d.rule == "openai/strict-null-absent").map(|d| d.path.as_str()).collect();
        named.sort_unstable();
        assert_eq!(named, ["/$defs/Node/properties/alias", "/$defs/Node/properties/note", "/properties/list"], "{:?}", cx.problems);
        assert_eq!(c.plan.apply(json!({"list":null,"node":{"alias":null,"note":null,"next":null},"cleared":null})), json!({"node":{}}));
    }

    #[test]
    fn strict_drops_uri_format_into_description() {
        // https://github.com/posit-dev/chatlas/pull/255
        let (c, _) = run(json!({"type":"object","properties":{"url":{"type":"string","format":"uri"}},"required":["url"]}), true);
        let s = c.schema.unwrap();
        assert!(s["properties"]["url"].get("format").is_none());
        assert!(s["properties"]["url"]["description"].as_str().unwrap().contains("format: uri"));
    }

    #[test]
    fn a_recursive_reference_merged_with_more_falls_back() {
        // The root is itself and an object: merged, the reference keeps siblings strict mode cannot hold.
        let schema = json!({"allOf": [{"allOf": [{"allOf": [{"$ref": "#"}]}, {"enum": [1]}]}, {"type": "object", "properties": {"a": {"$ref": "#"}}}]});
        let (out, cx) = run(schema, true);
        assert_eq!(out.strict, Some(false), "{:?}", out.schema);
        assert!(cx.problems.iter().any(|d| d.rule == "openai/strict-fallback" && d.message.contains("recursive reference")), "{:?}", cx.problems);
    }

    #[test]
    fn strict_falls_back_on_open_maps() {
        let (c, cx) = run(
            json!({"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}}}),
            true,
        );
        assert_eq!(c.strict, Some(false));
        assert!(cx.problems.iter().any(|d| d.rule == "openai/strict-fallback"));
        // The non-strict schema keeps the map.
        assert_eq!(c.schema.unwrap()["properties"]["labels"]["additionalProperties"], json!({"type":"string"}));
    }

    /// A recursive schema keeps its references under strict (OpenAI takes them, recursion
    /// included): the definitions are made strict once, under the root's `$defs`, and the
    /// argument plan follows the references back through any depth of the value.
    #[test]
    fn strict_keeps_a_recursion_as_references() {
        let (c, cx) = run(
            json!({"type":"object","required":["filter"],
                   "properties":{"filter":{"$ref":"#/$defs/Filter","description":"the filter"},"limit":{"type":"integer","minimum":1}},
                   "$defs":{"Filter":{"type":"object","required":["field"],
                            "properties":{"field":{"type":"string","format":"uri"},"and":{"type":"array","items":{"$ref":"#/$defs/Filter"}},
                                          "not":{"$ref":"#/$defs/Filter"}}}}}),
            true,
        );
        assert_eq!(c.strict, Some(true), "{:?}", cx.problems);
        let s = c.schema.unwrap();
        assert_eq!(s["properties"]["filter"], json!({"description":"the filter","anyOf":[{"$ref":"#/$defs/Filter"}]}));
        assert_eq!(s["required"], json!(["filter", "limit"]));
        let filter = &s["$defs"]["Filter"];
        assert_eq!(filter["additionalProperties"], json!(false));
        assert_eq!(filter["required"], json!(["field", "and", "not"]));
        assert_eq!(filter["properties"]["and"]["type"], json!(["array", "null"]));
        assert_eq!(filter["properties"]["and"]["items"], json!({"$ref":"#/$defs/Filter"}));
        assert_eq!(filter["properties"]["not"], json!({"anyOf":[{"$ref":"#/$defs/Filter"},{"type":"null"}]}));
        assert!(filter["properties"]["field"]["description"].as_str().unwrap().contains("format: uri"));
        assert!(cx.changes.iter().any(|d| d.rule == "openai/strict-defs"));
        assert!(!cx.changes.iter().any(|d| d.rule == "refs/recursion-cut"), "the abandoned inlining reports nothing");
        // The model's nulls for absent optionals are removed at every depth of the recursion.
        let args = json!({"filter":{"field":"a","and":[{"field":"b","and":null,"not":{"field":"c","and":null,"not":null}}],"not":null},"limit":null});
        assert_eq!(c.plan.apply(args), json!({"filter":{"field":"a","and":[{"field":"b","not":{"field":"c"}}]}}));
        // The plan survives its JSON form.
        assert_eq!(ArgPlan::from_value(&c.plan.to_value()).unwrap(), c.plan);
    }

    /// `#` (the root) and pointers into the document become `$defs` entries or `#`; a
    /// reference with a sibling that constrains the value makes the recursive tool non-strict.
    #[test]
    fn strict_recursion_by_pointer_and_root() {
        let (c, cx) = run(
            json!({"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}},
                   "first":{"$ref":"#/properties/children/items"}},"required":["name"]}),
            true,
        );
        assert_eq!(c.strict, Some(true), "{:?}", cx.problems);
        let s = c.schema.unwrap();
        assert_eq!(s["properties"]["children"]["items"], json!({"$ref":"#"}));
        assert_eq!(s["properties"]["first"], json!({"anyOf":[{"$ref":"#"},{"type":"null"}]}));
        assert!(s.get("$defs").is_none(), "a recursion through the root alone needs no table");
        let args = json!({"name":"a","children":[{"name":"b","children":null,"first":null}],"first":null});
        assert_eq!(c.plan.apply(args), json!({"name":"a","children":[{"name":"b"}]}));

        let (c, cx) = run(
            json!({"type":"object","properties":{"next":{"$ref":"#","minProperties":1}}}),
            true,
        );
        assert_eq!(c.strict, Some(false));
        assert!(cx.problems.iter().any(|d| d.rule == "openai/strict-fallback" && d.message.contains("minProperties")), "{:?}", cx.problems);
    }

    #[test]
    fn root_enum_is_removed() {
        let (c, _) = run(json!({"type":"object","properties":{},"enum":[{}]}), false);
        assert!(c.schema.unwrap().get("enum").is_none());
    }

    /// OpenAI refuses `not` at the root of parameters ("schema must not have 'not' at the top
    /// level"): removed, and said so.
    #[test]
    fn root_not_is_removed_and_reported() {
        let (c, cx) = run(json!({"type":"object","properties":{"a":{"type":"string"}},"not":{"required":["a"]}}), false);
        let schema = c.schema.unwrap();
        assert!(schema.get("not").is_none(), "{schema}");
        assert_eq!(schema["properties"]["a"]["type"], "string");
        assert!(cx.changes.iter().any(|c| c.rule == "openai/root-keyword" && c.message.contains("`not`")), "reported");
    }

    /// Strict mode closes an object open by omission, and says so (probe F7), for OpenAI and
    /// Claude, on both paths; one that says `additionalProperties: true` means its undeclared
    /// properties, and the tool falls back (as the OpenAI Agents SDK refuses it).
    /// An object closed by `unevaluatedProperties: false` accepted no undeclared property: strict
    /// mode's `additionalProperties: false` narrows nothing there, and no `strict-close` says it
    /// does, as none does for one closed by `additionalProperties: false` (s29f F8). Beside an
    /// `anyOf` whose branch declares a property of its own, which it accepted, closing is one.
    #[test]
    fn an_object_closed_by_unevaluated_properties_is_not_reported_closed() {
        use crate::convert::{convert, convert_json, ConvertOptions};
        use crate::providers::Provider;
        let object = |closing: &str| json!({"type":"object","properties":{"a":{"type":"string"}},"required":["a"],closing:false});
        let nested = |o: Value| json!({"type":"object","properties":{"o":o},"required":["o"],"additionalProperties":false});
        let all_of = json!({"type":"object","allOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"integer"}},"required":["b"]}],"unevaluatedProperties":false});
        let branches = json!({"type":"object","properties":{"a":{"type":"string"}},"required":["a"],
            "anyOf":[{"properties":{"b":{"type":"integer"}},"required":["b"]},{"required":["a"]}],"unevaluatedProperties":false});
        for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Bedrock] {
            let mut opts = ConvertOptions::default();
            opts.schema.strict = true;
            for (schema, closed_at) in [
                (object("unevaluatedProperties"), None),
                (object("additionalProperties"), None),
                (nested(object("unevaluatedProperties")), None),
                (all_of.clone(), None),
                (nested(branches.clone()), Some("/properties/o")),
            ] {
                let tools = json!([{"name":"t","inputSchema":schema.clone()}]);
                let conv = convert(tools.clone(), provider, &opts).unwrap();
                let r = &conv.report.tools[0];
                if r.strict != Some(true) {
                    // A provider that cannot take the branches beside the object says why instead.
                    assert!(closed_at.is_some(), "{provider:?} {schema}: {r:?}");
                    continue;
                }
                let closed: Vec<&str> = r.changes.iter().filter(|d| d.rule.ends_with("/strict-close")).map(|d| d.path.as_str()).collect();
                assert_eq!(closed.contains(&"/properties/o") || closed.contains(&""), closed_at.is_some(), "{provider:?} {schema}: {closed:?}");
                assert_eq!(convert_json(&tools.to_string(), provider, &opts).unwrap(), conv.tools.to_string(), "{provider:?} {schema}");
            }
        }
    }

    #[test]
    fn closing_an_open_object_is_a_change_and_an_explicit_true_falls_back() {
        use crate::convert::{convert, convert_json, ConvertOptions};
        use crate::providers::Provider;
        for ap in [None, Some(true)] {
            let mut o = json!({"type":"object","properties":{"k":{"type":"string"}},"required":["k"]});
            if let Some(b) = ap {
                o["additionalProperties"] = json!(b);
            }
            let tools = json!([{"name":"t","inputSchema":{"type":"object","properties":{"o":o},"required":["o"],"additionalProperties":false}}]);
            for (provider, rule) in [(Provider::OpenAi, "openai/strict-close"), (Provider::Anthropic, "anthropic/strict-close")] {
                let mut opts = ConvertOptions::default();
                opts.schema.strict = true;
                let out = convert(tools.clone(), provider, &opts).unwrap();
                let r = &out.report.tools[0];
                let closed: Vec<&str> = r.changes.iter().filter(|d| d.rule == rule).map(|d| d.path.as_str()).collect();
                match ap {
                    None => {
                        assert_eq!(r.strict, Some(true), "{provider:?}: {r:?}");
                        assert_eq!(closed, ["/properties/o"], "{provider:?}");
                    }
                    Some(_) => {
                        assert_ne!(r.strict, Some(true), "{provider:?}: {r:?}");
                        assert!(closed.is_empty(), "{provider:?}: {r:?}");
                        assert!(r.problems.iter().any(|d| d.message.contains("an open map (additionalProperties)")), "{provider:?}: {r:?}");
                    }
                }
                assert_eq!(convert_json(&tools.to_string(), provider, &opts).unwrap(), out.tools.to_string(), "{provider:?} {ap:?}");
            }
        }
    }
}
