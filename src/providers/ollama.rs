//! Ollama's own `/api/chat` (`tools`: OpenAI Chat's wrapper, `{type: "function", function:
//! {name, description, parameters}}`).
//!
//! Ollama takes no JSON Schema: it decodes `parameters` into fixed structs (`api/types.go`,
//! `ToolFunctionParameters` and `ToolProperty`) and renders the tools from those, so every
//! keyword they have no field for is dropped before the model sees the tools
//! (ollama/ollama#11444, #13472). What they keep:
//! - the root: `type` (a string), `$defs` and `items` (as they are), `required` (names) and
//!   `properties`, each a property schema;
//! - a property schema: `anyOf` (property schemas), `type` (a string or a list of strings),
//!   `items` (as it is), `description` (a string), `enum` (any values) and `properties`
//!   (property schemas).
//!
//! A value that does not decode into those fields (a property schema that is a JSON boolean,
//! `"value": true`) fails the whole request (400). This profile writes only what they keep.
//!
//! Steps, in order:
//! 1. Root combinators merged into one object.
//! 2. `$ref`s inlined (a `$ref` property would reach the model as an untyped `{}`); recursion
//!    unrolled, then cut to a described open object, as for Gemini.
//! 3. Structure fixed on every node ([`super::fix_structure`]).
//! 4. Property schemas (under `properties` and `anyOf`, at any depth): `true` → `{}` (any
//!    value), `false` → the property removed (and from `required`), the branch from `anyOf`;
//!    `allOf` merged; `oneOf` read as `anyOf`; `const` → a one-value `enum`; every keyword
//!    Ollama does not keep (`format`, `pattern`, bounds, `default`, a nested `required`,
//!    `additionalProperties`...) removed, what carried meaning folded into the description
//!    (`ollama/strip-keyword`, "format: uri", "minimum: 1", "required: [\"n\"]"). `items` is
//!    kept as it is, as Ollama keeps it, but for a tuple's: one schema for every item there,
//!    `anyOf` the leading items' and the rest's (`ollama/tuple`).
//! 5. The root: `type: "object"`; its other keywords removed (its definitions too, which no
//!    reference uses once all are inlined). It has no description: its own
//!    (and the note that replaces a merged root combinator) goes to the end of the tool's
//!    description ([`take_root_description`], by the converter; `ollama/root-description`),
//!    and so does what another removed keyword meant (`ollama/strip-keyword`).

use serde_json::{Map, Value};

use crate::args::ArgPlan;
use crate::error::Result;
use crate::model::{string, JsonObject, Keyed as _, NameSet, Put as _, Take as _};
use crate::providers::{fix_root_structure, Compiled, SchemaOptions};
use crate::schema::lower::{const_as_enum, keyword_hint, one_of_described_as_any_of, merge_all_of, merge_root_combinators_untitled, take_unrequired_contains};
use crate::schema::refs::inline_refs;
use crate::schema::walk::contains_ref;
use crate::schema::{append_description, Cx};

/// The keys of Ollama's `ToolProperty`.
pub const PROPERTY_KEYS: &[&str] = &["anyOf", "type", "items", "description", "enum", "properties"];

/// The keys of Ollama's `ToolFunctionParameters`.
pub const ROOT_KEYS: &[&str] = &["type", "$defs", "items", "required", "properties"];

/// Compiles for Ollama.
pub fn compile(mut root: Value, _opts: &SchemaOptions, cx: &mut Cx) -> Result<Compiled> {
    if let Value::Object(obj) = &mut root {
        // Ollama's schema keeps no `title`: two in a root `allOf` are no conflict here.
        merge_root_combinators_untitled(obj, cx);
    }
    if contains_ref(&root, 0) {
        root = inline_refs(&root, cx)?;
    }
    fix_root_structure(&mut root, cx)?;
    cx.reset_budget();
    let Value::Object(obj) = root else {
        return Ok(Compiled { schema: Some(root), strict: None, plan: ArgPlan::default(), relaxed: None });
    };
    let schema = lower_root(obj, cx)?;
    cx.reset_budget();
    Ok(Compiled { schema: Some(Value::Object(schema)), strict: None, plan: ArgPlan::default(), relaxed: None })
}

/// Step 5.
fn lower_root(o: JsonObject, cx: &mut Cx) -> Result<JsonObject> {
    let mut out = Map::with_capacity(o.len());
    let mut hints: Vec<String> = Vec::new();
    for (key, value) in o {
        match key.as_str() {
            "type" => {
                if value != "object" {
                    cx.at("type", |cx| {
                        cx.change("ollama/root-type", format!("the root's `type` was {}; written \"object\" (Ollama reads one type there, a string)", crate::schema::short_json(&value)));
                        Ok(())
                    })?;
                }
                out.put("type", string("object"));
            }
            "properties" => {
                let props = lower_properties(value, cx)?;
                out.put("properties", props);
            }
            "required" | "items" => {
                out.insert(key, value);
            }
            // Every reference is inlined: what is left of the definitions, Ollama's `$defs` too,
            // is used by nothing.
            "$defs" | "definitions" => cx.at(&key, |cx| {
                cx.change("ollama/strip-keyword", format!("`{key}` is used by no reference (every `$ref` is inlined); removed"));
                Ok(())
            })?,
            "description" if value.as_str().is_some_and(|d| !d.trim().is_empty()) => {
                cx.at("description", |cx| {
                    cx.change("ollama/root-description", "Ollama reads no description on the parameters (only the tool's and its properties'): moved to the end of the tool's description");
                    Ok(())
                })?;
                // Taken out by the converter (`take_root_description`).
                out.insert(key, value);
            }
            "additionalProperties" if matches!(&value, Value::Bool(_)) || value.as_object().is_some_and(Map::is_empty) => cx.at(&key, |cx| {
                cx.change("ollama/strip-keyword", "`additionalProperties` is not read by Ollama; removed");
                Ok(())
            })?,
            _ => cx.at(&key, |cx| {
                match keyword_hint(&key, &value) {
                    Some(h) => {
                        cx.change("ollama/strip-keyword", format!("`{key}` is not read by Ollama; removed and described in the tool's description ({h})"));
                        hints.push(h);
                    }
                    None => cx.change("ollama/strip-keyword", format!("`{key}` is not read by Ollama; removed")),
                }
                Ok(())
            })?,
        }
    }
    if !hints.is_empty() {
        // Taken out with the root's own description by the converter.
        append_description(&mut out, &format!("({})", hints.join("; ")));
    }
    if !out.has("type") {
        out.put("type", string("object"));
    }
    keep_required(&mut out, cx)?;
    Ok(out)
}

/// The root's description, which Ollama does not read, taken out of a compiled schema: the
/// converter adds it to the tool's description.
pub fn take_root_description(c: &mut Compiled) -> Option<String> {
    match c.schema.as_mut()?.as_object_mut()?.take("description")? {
        Value::String(d) => Some(d),
        _ => None,
    }
}

/// The tool's description with the root's after it.
pub fn with_root_description(tool: &str, root: &str) -> String {
    match (tool.trim_end(), root.trim()) {
        ("", r) => r.to_owned(),
        (t, r) => format!("{t}\n\n{r}"),
    }
}

/// A `properties` map, each value lowered as a property schema; one that accepts no value goes.
fn lower_properties(value: Value, cx: &mut Cx) -> Result<Value> {
    let Value::Object(props) = value else { return Ok(value) };
    let mut lowered = Map::with_capacity(props.len());
    for (name, sub) in props {
        let r = cx.at("properties", |cx| cx.at(&name, |cx| lower(sub, cx)))?;
        match r {
            Some(s) => {
                lowered.insert(name, s);
            }
            None => cx.at("properties", |cx| {
                cx.at(&name, |cx| {
                    cx.change("ollama/false-property", "property schema is `false` (it can never be given); removed");
                    Ok(())
                })
            })?,
        }
    }
    Ok(Value::Object(lowered))
}

/// `required` naming only the properties left (a `false` one is removed).
fn keep_required(o: &mut JsonObject, cx: &mut Cx) -> Result<()> {
    let declared: Vec<String> = o.find("properties").and_then(Value::as_object).map(|p| p.keys().cloned().collect()).unwrap_or_default();
    let Some(Value::Array(names)) = o.find_mut("required") else { return Ok(()) };
    let declared = NameSet::of(declared.iter().map(String::as_str));
    let before = names.len();
    let mut removed = Vec::new();
    names.retain(|n| {
        let keep = n.as_str().is_some_and(|n| declared.contains(n));
        if !keep {
            removed.push(crate::schema::short_json(n));
        }
        keep
    });
    if names.len() < before {
        let message = format!("removed from `required` (no such property): {}", removed.join(", "));
        if names.is_empty() {
            o.take("required");
        }
        cx.at("required", |cx| {
            cx.change("schema/required-missing-property", message);
            Ok(())
        })?;
    }
    Ok(())
}

/// Step 4 on one property schema: `None` when it accepts no value.
fn lower(node: Value, cx: &mut Cx) -> Result<Option<Value>> {
    match node {
        Value::Bool(false) => Ok(None),
        Value::Bool(true) => {
            cx.change("ollama/boolean-schema", "property schema `true` (any value) written as `{}`: Ollama cannot read a boolean schema, and refuses the request");
            Ok(Some(Value::Object(Map::new())))
        }
        Value::Object(o) => {
            cx.enter()?;
            let r = lower_object(o, cx);
            cx.leave();
            r
        }
        other => Ok(Some(other)),
    }
}

fn lower_object(mut o: JsonObject, cx: &mut Cx) -> Result<Option<Value>> {
    if o.has("allOf") {
        let conflicts = merge_all_of(&mut o);
        cx.change("ollama/allof", "allOf merged into one schema (Ollama does not read allOf)");
        // Ollama's schema keeps no `title` (removed from every node): two are no conflict here.
        for k in conflicts.into_iter().filter(|k| k != "title") {
            cx.problem("ollama/allof-conflict", format!("allOf branches disagree on `{k}`; the first value is kept"));
        }
    }
    one_of_described_as_any_of(&mut o, cx, ["ollama/oneof", "ollama/oneof-beside-anyof"], "Ollama does not read oneOf; ", "Ollama reads no allOf");
    const_as_enum(&mut o, cx, "ollama/const", " (Ollama does not read const)");
    let closed_hint = tuple_items(&mut o, cx)?;
    let mut out = Map::with_capacity(o.len());
    let mut hints: Vec<String> = Vec::new();
    // A `contains` that `minContains: 0` turns off requires no item: not described as one that
    // must be there.
    if let Some(note) = take_unrequired_contains(&mut o) {
        let message = match &note {
            Some(h) => format!("`contains` with `minContains: 0` requires no matching item; removed with its `minContains` and `maxContains`, and described ({h})"),
            None => "`contains` with `minContains: 0` requires no matching item (an array without one is valid); removed with its `minContains`".to_owned(),
        };
        cx.at("contains", |cx| {
            cx.change("ollama/strip-keyword", message);
            Ok(())
        })?;
        hints.extend(note);
    }
    for (key, value) in o {
        match key.as_str() {
            "type" | "items" | "description" | "enum" => {
                out.insert(key, value);
            }
            "properties" => {
                let props = lower_properties(value, cx)?;
                out.insert(key, props);
            }
            "anyOf" => {
                let Value::Array(branches) = value else { continue };
                let mut kept = Vec::with_capacity(branches.len());
                for (i, b) in branches.into_iter().enumerate() {
                    let at = i.to_string();
                    match cx.at("anyOf", |cx| cx.at(&at, |cx| lower(b, cx)))? {
                        Some(s) => kept.push(s),
                        None => cx.at("anyOf", |cx| {
                            cx.at(&at, |cx| {
                                cx.change("ollama/false-branch", "branch `false` (no value) removed from anyOf");
                                Ok(())
                            })
                        })?,
                    }
                }
                if kept.is_empty() {
                    return Ok(None);
                }
                out.insert(key, Value::Array(kept));
            }
            _ => match required_hint(&key, &value).or_else(|| keyword_hint(&key, &value)) {
                Some(h) => {
                    cx.at(&key, |cx| {
                        cx.change("ollama/strip-keyword", format!("`{key}` is not read by Ollama; removed and described ({h})"));
                        Ok(())
                    })?;
                    hints.push(h);
                }
                None => cx.at(&key, |cx| {
                    cx.change("ollama/strip-keyword", format!("`{key}` is not read by Ollama; removed"));
                    Ok(())
                })?,
            },
        }
    }
    hints.extend(closed_hint);
    if !hints.is_empty() {
        append_description(&mut out, &format!("({})", hints.join("; ")));
    }
    Ok(Some(Value::Object(out)))
}

/// A tuple (`prefixItems`; draft 4's `items: [..]` is written so by then) whose `items` says what
/// the items past it may be. Ollama's `items` is one schema for every item: kept as given it
/// would hold for the leading items too (the `items: false` of a closed pair: no item at all). As
/// for Gemini, it becomes `anyOf` the leading items' schemas and the rest's (their order is in
/// `prefixItems`' description), and a closed tuple has at most as many items as it lists: a
/// larger `maxItems` of the node lowered to that, else the note returned for the description.
fn tuple_items(o: &mut JsonObject, cx: &mut Cx) -> Result<Option<String>> {
    let (Some(Value::Array(leading)), Some(rest)) = (o.find("prefixItems"), o.find("items")) else { return Ok(None) };
    // Items past the tuple of any value (`true`, `{}`, as `schema/add-items` writes an open
    // tuple's): `items` already says what the leading items may be.
    let closed = *rest == Value::Bool(false);
    if leading.is_empty() || !(closed || rest.as_object().is_some_and(|r| !r.is_empty())) {
        return Ok(None);
    }
    let n = leading.len();
    let mut branches: Vec<Value> = Vec::with_capacity(n + 1);
    // A `false` position adds no value an item may have.
    for b in leading.iter().chain((!closed).then_some(rest)).filter(|b| **b != Value::Bool(false)) {
        if !branches.contains(b) {
            branches.push(b.clone());
        }
    }
    let items = match branches.len() {
        0 => return Ok(None),
        1 => branches.pop().unwrap_or_default(),
        _ => crate::model::object([("anyOf", Value::Array(branches))]),
    };
    o.put("items", items);
    if !closed {
        cx.at("items", |cx| {
            cx.change("ollama/tuple", "a tuple's `items` (the items past its `prefixItems`): Ollama's `items` is one schema for every item, so it is any of the leading items' schemas and this one (their order described)");
            Ok(())
        })?;
        return Ok(None);
    }
    let own = o.find("maxItems").and_then(Value::as_u64);
    let note = match own {
        Some(m) if m <= n as u64 => None,
        Some(_) => {
            o.put("maxItems", Value::from(n));
            None
        }
        None => keyword_hint("maxItems", &Value::from(n)),
    };
    // The bound described: the node's own `maxItems` where it is the smaller.
    let most = own.filter(|m| *m <= n as u64).unwrap_or(n as u64);
    let s = if most == 1 { "" } else { "s" };
    cx.at("items", |cx| {
        cx.change("ollama/tuple", format!("a closed tuple (`items: false` after {n} `prefixItems`): Ollama's `items` is one schema for every item, so it is any of the leading items' schemas, at most {most} item{s} (described, with their order)"));
        Ok(())
    })?;
    Ok(note)
}

/// A nested `required`, which Ollama does not read, described with every name (the common note
/// shortens a long list).
fn required_hint(key: &str, v: &Value) -> Option<String> {
    match (key, v) {
        ("required", Value::Array(names)) if names.iter().all(Value::is_string) => Some(format!("required: {}", crate::text::to_string(v))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{process_json_schema, Limits};
    use serde_json::json;

    fn run(schema: Value) -> (Value, Cx) {
        let mut cx = Cx::new(Limits::default());
        let (root, _) = process_json_schema(&schema, &mut cx);
        let c = compile(root, &SchemaOptions::default(), &mut cx).unwrap();
        (c.schema.unwrap(), cx)
    }

    /// Whether `schema` holds only what Ollama's structs keep (`items` as it is).
    fn only_kept(schema: &Value) -> bool {
        fn property(p: &Value) -> bool {
            let Value::Object(o) = p else { return false };
            o.iter().all(|(k, v)| {
                PROPERTY_KEYS.contains(&k.as_str())
                    && match k.as_str() {
                        "properties" => v.as_object().is_some_and(|m| m.values().all(property)),
                        "anyOf" => v.as_array().is_some_and(|a| a.iter().all(property)),
                        "description" => v.is_string(),
                        "enum" => v.is_array(),
                        "type" => v.is_string() || v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
                        _ => true,
                    }
            })
        }
        let Value::Object(o) = schema else { return false };
        o.iter().all(|(k, v)| {
            ROOT_KEYS.contains(&k.as_str())
                && match k.as_str() {
                    "type" => v.is_string(),
                    "properties" => v.as_object().is_some_and(|m| m.values().all(property)),
                    "required" => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
                    _ => true,
                }
        })
    }

    #[test]
    fn what_ollama_drops_is_inlined_rewritten_or_described() {
        let input = json!({
            "type": "object",
            "$defs": {"Addr": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
            "properties": {
                "to": {"$ref": "#/$defs/Addr"},
                "kind": {"const": "flight"},
                "when": {"type": "string", "format": "date-time", "description": "Departure."},
                "seats": {"type": "integer", "minimum": 1, "maximum": 9},
                "pax": {"type": "object", "properties": {"n": {"type": "string"}}, "required": ["n"], "additionalProperties": false},
                "mode": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}}
            },
            "required": ["to", "kind"],
            "additionalProperties": false,
            "$schema": "http://json-schema.org/draft-07/schema#"
        });
        let (s, cx) = run(input);
        assert!(only_kept(&s), "{s}");
        let p = &s["properties"];
        assert_eq!(p["to"], json!({"type": "object", "properties": {"city": {"type": "string"}}, "description": "(required: [\"city\"])"}));
        assert_eq!(p["kind"], json!({"enum": ["flight"]}));
        assert_eq!(p["when"], json!({"type": "string", "description": "Departure. (format: date-time)"}));
        assert_eq!(p["seats"], json!({"type": "integer", "description": "(minimum: 1; maximum: 9)"}));
        assert_eq!(p["mode"], json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}));
        // `items` is kept as it is, as Ollama keeps it.
        assert_eq!(p["tags"]["items"], json!({"type": "string", "pattern": "^[a-z]+$"}));
        assert_eq!(s["required"], json!(["to", "kind"]));
        assert!(s.get("$defs").is_none() && s.get("additionalProperties").is_none() && s.get("$schema").is_none());
        let rules: Vec<(&str, &str)> = cx.changes.iter().map(|d| (d.path.as_str(), d.rule)).collect();
        for expected in [
            ("/properties/kind", "ollama/const"),
            ("/properties/when/format", "ollama/strip-keyword"),
            ("/properties/seats/minimum", "ollama/strip-keyword"),
            ("/properties/pax/required", "ollama/strip-keyword"),
            ("/properties/mode", "ollama/oneof"),
            ("/additionalProperties", "ollama/strip-keyword"),
            ("/$schema", "ollama/strip-keyword"),
        ] {
            assert!(rules.contains(&expected), "{expected:?} not in {rules:?}");
        }
        assert!(cx.problems.is_empty(), "{:?}", cx.problems);
        // A long nested `required` is described with every name.
        let names: Vec<String> = (0..30).map(|i| format!("field_{i}")).collect();
        let props: serde_json::Map<String, Value> = names.iter().map(|n| (n.clone(), json!({"type": "string"}))).collect();
        let (s, _) = run(json!({"type": "object", "properties": {"o": {"type": "object", "properties": props, "required": names}}}));
        assert!(s["properties"]["o"]["description"].as_str().unwrap().contains("\"field_29\"]"), "{s}");
    }

    /// Ollama's `items` is one schema for every item: a tuple's `items` (the rest's) is any of
    /// the leading items' schemas and its own, as for Gemini, and a closed tuple's `false` (no
    /// item past the tuple) is not kept as "no item at all".
    #[test]
    fn tuple_items_hold_the_leading_items_too() {
        let (s, cx) = run(json!({"type": "object", "properties": {
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false},
            "draft4": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false},
            "rest": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}},
            "same": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "string"}], "items": false, "maxItems": 5},
            "short": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false, "maxItems": 1},
            "open": {"type": "array", "prefixItems": [{"type": "string"}]},
            "plain": {"type": "array", "items": false}
        }}));
        assert!(only_kept(&s), "{s}");
        let p = &s["properties"];
        let pair = json!({"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}, "description": "(leading items: [{\"type\":\"string\"},{\"type\":\"integer\"}]; at most 2 items)"});
        assert_eq!(p["pair"], pair);
        assert_eq!(p["draft4"], pair);
        assert_eq!(p["rest"], json!({"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}, "description": "(leading items: [{\"type\":\"string\"}])"}));
        // The same schema twice is one; a larger `maxItems` is the tuple's length.
        assert_eq!(p["same"]["items"], json!({"type": "string"}));
        assert!(p["same"]["description"].as_str().is_some_and(|d| d.ends_with("; at most 2 items)")), "{s}");
        assert!(p["short"]["description"].as_str().is_some_and(|d| d.ends_with("; at most 1 item)")), "{s}");
        // Items past an open tuple may be anything, as `items` says; `items: false` without a
        // tuple is no item, as it says.
        assert_eq!(p["open"]["items"], json!({}));
        assert_eq!(p["plain"]["items"], json!(false));
        let tuples: Vec<&str> = cx.changes.iter().filter(|d| d.rule == "ollama/tuple").map(|d| d.path.as_str()).collect();
        assert_eq!(tuples, ["/properties/pair/items", "/properties/draft4/items", "/properties/rest/items", "/properties/same/items", "/properties/short/items"]);
        // The change says the bound described: the smaller own `maxItems` (s29r3 F3).
        let said = |at: &str| cx.changes.iter().find(|d| d.rule == "ollama/tuple" && d.path == at).map(|d| d.message.as_str()).unwrap_or_default();
        assert!(said("/properties/short/items").ends_with(", at most 1 item (described, with their order)"), "{:?}", cx.changes);
        assert!(said("/properties/same/items").ends_with(", at most 2 items (described, with their order)"), "{:?}", cx.changes);
        assert!(cx.problems.is_empty(), "{:?}", cx.problems);
    }

    /// `minContains: 0` asks for no item matching `contains`: not described as an item that must
    /// be there; a `maxContains` beside it is the bound it says (s29f F5).
    #[test]
    fn contains_that_requires_nothing_is_not_described_as_required() {
        let (s, cx) = run(json!({"type": "object", "properties": {
            "tags": {"type": "array", "items": {"type": "string"}, "contains": {"const": "urgent"}, "minContains": 0},
            "few": {"type": "array", "contains": {"const": "x"}, "minContains": 0, "maxContains": 2},
            "none": {"type": "array", "contains": {"const": "x"}, "minContains": 0, "maxContains": 0},
            "one": {"type": "array", "contains": {"const": "x"}, "minContains": 1}
        }}));
        let p = &s["properties"];
        assert_eq!(p["tags"], json!({"type": "array", "items": {"type": "string"}}));
        assert_eq!(p["few"]["description"], json!("(at most 2 items matching {\"const\":\"x\"})"));
        assert_eq!(p["none"]["description"], json!("(no item may match {\"const\":\"x\"})"));
        assert!(p["one"]["description"].as_str().is_some_and(|d| d.contains("must contain an item matching")), "{s}");
        let said: Vec<&str> = cx.changes.iter().filter(|d| d.message.contains("`minContains: 0`")).map(|d| d.path.as_str()).collect();
        assert_eq!(said, ["/properties/tags/contains", "/properties/few/contains", "/properties/none/contains"], "{:?}", cx.changes);
    }

    #[test]
    fn boolean_property_schemas_are_made_readable() {
        // Ollama cannot decode `true` into its property struct: the request would be refused.
        let (s, cx) = run(json!({"type": "object", "properties": {"name": {"type": "string"}, "value": true, "never": false, "u": {"anyOf": [{"type": "string"}, false]}}, "required": ["name", "value", "never"]}));
        assert!(only_kept(&s), "{s}");
        assert_eq!(s["properties"], json!({"name": {"type": "string"}, "value": {}, "u": {"anyOf": [{"type": "string"}]}}));
        assert_eq!(s["required"], json!(["name", "value"]));
        let rules: Vec<&str> = cx.changes.iter().map(|d| d.rule).collect();
        for r in ["ollama/boolean-schema", "ollama/false-property", "ollama/false-branch", "schema/required-missing-property"] {
            assert!(rules.contains(&r), "{r} not in {rules:?}");
        }
    }

    #[test]
    fn the_roots_description_and_notes_go_to_the_tools() {
        let (mut s, cx) = run(json!({"type": "object", "description": "d", "properties": {"a": {"type": "string"}}, "minProperties": 1, "title": "T"}));
        // The root's description goes to the tool's (see `take_root_description`), with what
        // its removed keywords meant.
        let mut c = Compiled { schema: Some(s.clone()), strict: None, plan: ArgPlan::default(), relaxed: None };
        assert_eq!(take_root_description(&mut c).as_deref(), Some("d (at least 1 property)"));
        s = c.schema.unwrap();
        assert_eq!(s, json!({"type": "object", "properties": {"a": {"type": "string"}}}));
        assert_eq!(with_root_description("Reads a.", "d"), "Reads a.\n\nd");
        assert_eq!(with_root_description("", "d"), "d");
        assert!(cx.problems.is_empty(), "{:?}", cx.problems);
        let rules: Vec<(&str, &str)> = cx.changes.iter().map(|d| (d.path.as_str(), d.rule)).collect();
        assert_eq!(rules, [("/description", "ollama/root-description"), ("/minProperties", "ollama/strip-keyword"), ("/title", "ollama/strip-keyword")]);
    }

    /// Every reference is inlined: definitions left at the root are used by nothing, and are
    /// removed and reported, `$defs` as `definitions`, also where the root itself was a
    /// reference into them.
    #[test]
    fn unused_root_definitions_are_removed_and_reported() {
        let unused = json!({"X": {"type": "string", "format": "uri", "pattern": "^h"}});
        for defs in ["$defs", "definitions"] {
            let mut root = json!({"type": "object", "properties": {"a": {"type": "string"}}});
            root[defs] = unused.clone();
            let mut by_ref = json!({"$ref": format!("#/{defs}/R")});
            by_ref[defs] = json!({"R": {"type": "object", "properties": {"a": {"type": "string"}}}, "X": unused["X"]});
            for input in [root, by_ref] {
                let (s, cx) = run(input.clone());
                assert!(only_kept(&s), "{input}: {s}");
                assert_eq!(s, json!({"type": "object", "properties": {"a": {"type": "string"}}}), "{input}");
                let at = format!("/{defs}");
                assert!(cx.changes.iter().any(|d| d.rule == "ollama/strip-keyword" && d.path == at), "{input}: {:?}", cx.changes);
            }
        }
    }

    #[test]
    fn recursion_is_cut_to_a_described_object() {
        let (s, cx) = run(json!({"type": "object", "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}, "v": {"type": "integer"}}}}, "properties": {"head": {"$ref": "#/$defs/N"}}}));
        assert!(only_kept(&s), "{s}");
        assert!(!crate::schema::walk::contains_ref(&s, 0), "{s}");
        assert!(cx.changes.iter().any(|d| d.rule == "refs/recursion-cut"), "{:?}", cx.changes);
    }
}
