//! Local `$ref` inlining.
//!
//! Resolves every local reference (`#/$defs/X`, `#/definitions/X`, and any JSON pointer into
//! the document such as `#/properties/headers/items`, or `#` itself) against the root schema.
//! Sibling keywords of a `$ref` overlay the target (2020-12 reads `$ref` + siblings as an
//! intersection; the siblings seen in practice are `description`, `default` and `title`).
//! A reference that is being expanded inside itself is unrolled at most
//! [`Limits::max_ref_unroll`](crate::schema::Limits) times, then cut to an open object whose
//! description says what was cut. Unresolvable references are removed and reported. Node and
//! depth budgets bound the work even for reference fan-out.

use serde_json::{Map, Value};

use crate::error::Result;
use crate::model::{JsonObject, Keyed as _};
use crate::schema::walk::{slot, Slot};
use crate::schema::Cx;

/// Returns `schema` with every local `$ref` inlined and `$defs`/`definitions` removed.
///
/// Besides the recursion bound, the expansion has a size budget: four times the input's node
/// count (at least 2,000 nodes). Mutually recursive definitions (Microsoft Graph's mail
/// folders, say) would otherwise grow exponentially; once the budget is spent, further
/// references are cut to described open objects, and the report says where.
pub fn inline_refs(schema: &Value, cx: &mut Cx) -> Result<Value> {
    let mut st = State { stack: Vec::new(), soft_budget: (count_nodes(schema, 0) * 4).max(2_000), cut: 0 };
    let out = resolve(schema, schema, &mut st, cx)?;
    if st.cut > 0 {
        cx.change(
            "refs/expansion-cut",
            format!("$ref expansion reached its size budget; {} deeper references were cut to open objects", st.cut),
        );
    }
    cx.reset_budget();
    Ok(out)
}

struct State {
    stack: Vec<String>,
    soft_budget: usize,
    cut: usize,
}

fn count_nodes(v: &Value, depth: usize) -> usize {
    if depth > 256 {
        return 1;
    }
    match v {
        Value::Object(o) => 1 + o.values().map(|x| count_nodes(x, depth + 1)).sum::<usize>(),
        Value::Array(a) => a.iter().map(|x| count_nodes(x, depth + 1)).sum::<usize>(),
        _ => 0,
    }
}

fn resolve(node: &Value, root: &Value, st: &mut State, cx: &mut Cx) -> Result<Value> {
    let Value::Object(obj) = node else { return Ok(node.clone()) };
    cx.enter()?;
    let out = resolve_object(obj, root, st, cx);
    cx.leave();
    out
}

fn resolve_object(obj: &JsonObject, root: &Value, st: &mut State, cx: &mut Cx) -> Result<Value> {
    if let Some(Value::String(reference)) = obj.find("$ref") {
        return resolve_ref(reference, obj, root, st, cx);
    }
    // A node with no subschema and no definitions (most nodes: the leaves) is copied as it is;
    // a clone keeps the map's stored hashes where rebuilding it would hash every key again.
    if obj.iter().all(|(key, value)| key != "$defs" && key != "definitions" && slot(key, value) == Slot::None) {
        return Ok(Value::Object(obj.clone()));
    }
    let mut out = Map::with_capacity(obj.len());
    for (key, value) in obj {
        if key == "$defs" || key == "definitions" {
            // Only ever a container for reference targets; they are inlined where used.
            continue;
        }
        let new_value = match (slot(key, value), value) {
            (Slot::Map, Value::Object(map)) => {
                let mut m = Map::with_capacity(map.len());
                cx.at(key, |cx| {
                    for (name, sub) in map {
                        let r = cx.at(name, |cx| resolve(sub, root, st, cx))?;
                        m.insert(name.clone(), r);
                    }
                    Ok(())
                })?;
                Value::Object(m)
            }
            (Slot::Single, _) => cx.at(key, |cx| resolve(value, root, st, cx))?,
            (Slot::Array, Value::Array(items)) => {
                let mut a = Vec::with_capacity(items.len());
                cx.at(key, |cx| {
                    for (i, sub) in items.iter().enumerate() {
                        a.push(cx.at(&i.to_string(), |cx| resolve(sub, root, st, cx))?);
                    }
                    Ok(())
                })?;
                Value::Array(a)
            }
            _ => value.clone(),
        };
        out.insert(key.clone(), new_value);
    }
    Ok(Value::Object(out))
}

fn resolve_ref(reference: &str, obj: &JsonObject, root: &Value, st: &mut State, cx: &mut Cx) -> Result<Value> {
    let siblings: JsonObject =
        obj.iter().filter(|(k, _)| k.as_str() != "$ref" && k.as_str() != "$defs" && k.as_str() != "definitions").map(|(k, v)| (k.clone(), v.clone())).collect();
    let Some(target) = lookup(root, reference) else {
        cx.problem("refs/unresolvable", format!("$ref \"{reference}\" cannot be resolved locally; removed"));
        let rest = resolve_object(&siblings, root, st, cx)?;
        return Ok(rest);
    };
    let seen = st.stack.iter().filter(|r| r.as_str() == reference).count();
    let over_budget = cx.nodes() > st.soft_budget;
    if seen >= cx.limits.max_ref_unroll || over_budget {
        let name = reference.rsplit('/').next().unwrap_or(reference);
        let name = if name.is_empty() || name == "#" { "the root schema" } else { name };
        if over_budget {
            st.cut += 1;
        } else {
            cx.change(
                "refs/recursion-cut",
                format!("recursive $ref \"{reference}\" unrolled {seen} times, then cut to an open object"),
            );
        }
        let mut cut = Map::new();
        cut.insert("type".into(), Value::String("object".into()));
        let mut desc = match siblings.find("description").and_then(Value::as_str) {
            Some(d) => format!("{} ", d.trim_end()),
            None => String::new(),
        };
        desc.push_str(&if over_budget {
            format!("(Structure {name}: nesting cut here to keep the schema small.)")
        } else {
            format!("(Recursive structure: {name}, same shape as its parent; nesting cut here.)")
        });
        cut.insert("description".into(), Value::String(desc));
        return Ok(Value::Object(cut));
    }
    st.stack.push(reference.to_owned());
    let resolved = resolve(target, root, st, cx);
    st.stack.pop();
    let resolved = resolved?;
    if siblings.is_empty() {
        return Ok(resolved);
    }
    let siblings = match resolve_object(&siblings, root, st, cx)? {
        Value::Object(o) => o,
        _ => Map::new(),
    };
    Ok(match resolved {
        Value::Object(mut target) => {
            for (k, v) in siblings {
                target.insert(k, v);
            }
            Value::Object(target)
        }
        // `true` with siblings is just the siblings; `false` stays `false`.
        Value::Bool(true) => Value::Object(siblings),
        other => other,
    })
}

/// Looks up a local reference (`#`, `#/a/b`, percent-encoded and `~0`/`~1`-escaped).
fn lookup<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        return Some(root);
    }
    if !fragment.starts_with('/') {
        return None; // `#anchor` form: not supported
    }
    let decoded = percent_decode(fragment);
    root.pointer(&decoded)
}

fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Limits;
    use serde_json::json;

    fn inline(v: Value) -> (Value, Cx) {
        let mut cx = Cx::new(Limits::default());
        let out = inline_refs(&v, &mut cx).expect("inlines");
        (out, cx)
    }

    #[test]
    fn defs_are_inlined_and_removed() {
        // FastMCP / Pydantic shape (https://github.com/vercel/ai/pull/19141)
        let (out, _) = inline(json!({
            "type":"object","$defs":{"Opt":{"type":"string","enum":["a","b"]}},
            "properties":{"o":{"$ref":"#/$defs/Opt","description":"choice"}}
        }));
        assert_eq!(out, json!({"type":"object","properties":{"o":{"type":"string","enum":["a","b"],"description":"choice"}}}));
    }

    #[test]
    fn json_pointer_into_properties_resolves() {
        // OpenAPI-derived servers (https://github.com/danny-avila/LibreChat/issues/14160)
        let (out, _) = inline(json!({
            "type":"object",
            "properties":{"a":{"type":"array","items":{"type":"integer"}},"b":{"$ref":"#/properties/a/items"}}
        }));
        assert_eq!(out["properties"]["b"], json!({"type":"integer"}));
    }

    #[test]
    fn recursion_is_unrolled_then_cut() {
        let (out, cx) = inline(json!({
            "type":"object","$defs":{"Node":{"type":"object","properties":{"child":{"$ref":"#/$defs/Node"}}}},
            "properties":{"root":{"$ref":"#/$defs/Node"}}
        }));
        let cut = &out["properties"]["root"]["properties"]["child"]["properties"]["child"];
        assert_eq!(cut["type"], "object");
        assert!(cut["description"].as_str().unwrap().contains("Recursive structure: Node"));
        assert_eq!(cx.changes[0].rule, "refs/recursion-cut");
    }

    #[test]
    fn root_self_reference_terminates() {
        let (out, _) = inline(json!({"type":"object","properties":{"next":{"$ref":"#"}}}));
        assert_eq!(out["properties"]["next"]["properties"]["next"]["properties"]["next"]["type"], "object");
    }

    #[test]
    fn unresolvable_ref_is_removed_and_reported() {
        let (out, cx) = inline(json!({"type":"object","properties":{"a":{"$ref":"#/$defs/Missing","description":"x"}}}));
        assert_eq!(out["properties"]["a"], json!({"description":"x"}));
        assert_eq!(cx.problems[0].rule, "refs/unresolvable");
        assert_eq!(cx.problems[0].path, "/properties/a");
    }

    #[test]
    fn property_named_ref_is_a_property() {
        let input = json!({"type":"object","properties":{"$ref":{"type":"string"},"$defs":{"type":"string"}}});
        let (out, _) = inline(input.clone());
        assert_eq!(out, input);
    }

    #[test]
    fn fan_out_is_cut_by_the_expansion_budget() {
        // Each level references the next one twice: 2^20 nodes if expanded naively.
        let mut defs = Map::new();
        for i in 0..20 {
            defs.insert(
                format!("L{i}"),
                json!({"type":"object","properties":{"a":{"$ref":format!("#/$defs/L{}", i + 1)},"b":{"$ref":format!("#/$defs/L{}", i + 1)}}}),
            );
        }
        defs.insert("L20".into(), json!({"type":"string"}));
        let schema = json!({"type":"object","$defs":defs,"properties":{"x":{"$ref":"#/$defs/L0"}}});
        let mut cx = Cx::new(Limits::default());
        let out = inline_refs(&schema, &mut cx).unwrap();
        assert!(count_nodes(&out, 0) < 20_000, "expansion stays bounded");
        assert!(cx.changes.iter().any(|c| c.rule == "refs/expansion-cut"));
    }

    #[test]
    fn deep_ref_chains_hit_the_depth_limit() {
        let mut defs = Map::new();
        for i in 0..100 {
            defs.insert(format!("L{i}"), json!({"type":"object","properties":{"a":{"$ref":format!("#/$defs/L{}", i + 1)}}}));
        }
        let schema = json!({"type":"object","$defs":defs,"properties":{"x":{"$ref":"#/$defs/L0"}}});
        let mut cx = Cx::new(Limits::default());
        let err = inline_refs(&schema, &mut cx).unwrap_err();
        assert_eq!(err.code, crate::error::ErrorCode::LimitExceeded);
    }
}
