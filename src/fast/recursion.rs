//! Whether a strict mode gives up on a schema for a recursive `$ref`, told from the borrowed
//! tree.
//!
//! The strict modes of OpenAI and Anthropic inline a schema's references first
//! ([`crate::schema::refs::inline_refs_unless_recursive`]) and send the schema without
//! `strict` as soon as that inlining cuts a recursive reference. Most schemas with recursive
//! references (Microsoft Graph's, say) are found so only after the general path has read them
//! into a `Value`, laid out their non-strict form and inlined up to the first cut.
//! [`stops_at_recursion`] runs the same inlining on the borrowed tree ([`super::refs`]), with
//! the budget of the non-strict form, and says `true` only when it meets the recursion cut
//! before anything else could decide: a limit, or a reference it cannot resolve there. The
//! schema is then the pass-through one, which is what the general path sends.
//!
//! The non-strict form differs from the tree only by the `properties: {}` added to object nodes
//! without them: no reference or subschema, nothing the inlining enters, only objects its budget
//! counts ([`base_objects`]). A reference that does not resolve on the tree might resolve into
//! one of those, so it ends the work.

use bumpalo::Bump;

use super::refs::{count_nodes, StrictInlining};
use super::Node;
use crate::schema::walk::{keyword, Keyword};
use crate::schema::Limits;

/// What the general path's strict inlining does with this schema (accepted by `is_clean`, so
/// that its non-strict form is the tree plus `properties: {}` on object nodes without them).
pub(crate) fn strict_inlining<'s>(root: &'s Node<'s>, arena: &'s Bump, limits: Limits) -> StrictInlining<'s> {
    // `refs::inline`'s budget counts the objects of the non-strict form.
    super::refs::strict_inlining(root, arena, limits, base_objects(root, 0))
}

/// [`crate::providers::openai::first_blocker`] on the tree: whether a subschema anywhere in it
/// is an open map or holds a keyword strict mode gives up on.
pub(crate) fn has_strict_blocker(node: &Node, depth: usize) -> bool {
    let Node::Obj(entries) = node else { return false };
    if depth > 256 {
        return false;
    }
    entries.iter().any(|(k, v)| match (keyword(k), v) {
        // `true`, or a value schema: an open map (`openai::close` closes an omission only).
        _ if &**k == "additionalProperties" && !matches!(v, Node::Bool(false)) => true,
        _ if crate::providers::openai::STRICT_BLOCKERS.contains(&&**k) => true,
        (Keyword::Map, Node::Obj(map)) => map.iter().any(|(_, sub)| has_strict_blocker(sub, depth + 1)),
        (Keyword::Array | Keyword::Items, Node::Arr(items)) => items.iter().any(|sub| has_strict_blocker(sub, depth + 1)),
        (Keyword::Single | Keyword::Items, sub) => has_strict_blocker(sub, depth + 1),
        _ => false,
    })
}

/// Whether the strict inlining stops at a recursive reference before anything else decides.
#[cfg(test)]
fn stops_at_recursion(root: &Node, arena: &Bump, limits: Limits) -> bool {
    let root = arena.alloc(*root);
    matches!(strict_inlining(root, arena, limits), StrictInlining::Stops)
}

/// `refs::count_nodes` of the non-strict form of a schema that `is_clean` accepted: its
/// objects (past 256 levels a value counts as one, as there), and the `properties: {}` that
/// [`Node::write_schema`] adds, found as it finds them.
fn base_objects(node: &Node, depth: usize) -> usize {
    let Node::Obj(entries) = node else { return count_nodes(node, depth) };
    if depth > 256 {
        return 1;
    }
    // A map or a list of subschemas, one level down, its members a level further.
    let container = |members: usize| if depth + 1 > 256 { 1 } else { members };
    let mut n = 1;
    let (mut object, mut has_properties) = (false, false);
    for (k, v) in entries.iter() {
        match (keyword(k), v) {
            (Keyword::Map, Node::Obj(map)) => {
                has_properties |= *k == "properties";
                n += container(1 + map.iter().map(|(_, sub)| base_objects(sub, depth + 2)).sum::<usize>());
            }
            (Keyword::Array | Keyword::Items, Node::Arr(items)) => n += container(items.iter().map(|sub| base_objects(sub, depth + 2)).sum()),
            (Keyword::Single | Keyword::Items, sub) => n += base_objects(sub, depth + 1),
            (_, value) => {
                if *k == "type" {
                    object = match value {
                        Node::Str(t) => *t == "object",
                        Node::Arr(ts) => ts.iter().any(|t| t.as_str() == Some("object")),
                        _ => false,
                    };
                }
                has_properties |= *k == "properties";
                n += count_nodes(value, depth + 1);
            }
        }
    }
    n + usize::from(object && !has_properties)
}

#[cfg(test)]
mod tests {
    use bumpalo::Bump;
    use serde_json::{json, Value};

    use crate::convert::{convert, convert_json, ConvertOptions};
    use crate::fast::passed_through;
    use crate::providers::Provider;
    use crate::schema::Limits;

    /// Whether the strict inlining was found to stop at a recursive reference (and the schema
    /// then passed through for Anthropic; for OpenAI too when it holds what strict mode gives
    /// up on, else the general path keeps its references), after checking that the JSON API's
    /// output is the general path's for both.
    fn found(schema: Value, limits: Limits) -> bool {
        let tools = json!([{ "name": "t", "inputSchema": schema }]);
        let text = tools.to_string();
        let mut opts = ConvertOptions::default();
        opts.schema.strict = true;
        opts.schema.limits = limits;
        let (mut passed, mut failed) = (Vec::new(), false);
        for provider in [Provider::OpenAi, Provider::Anthropic] {
            let (fast, general) = (convert_json(&text, provider, &opts), convert(tools.clone(), provider, &opts));
            match (&fast, &general) {
                (Ok(f), Ok(g)) => assert_eq!(*f, g.tools.to_string(), "{provider:?}: {schema}"),
                (Err(f), Err(g)) => assert_eq!(f.code, g.code),
                _ => panic!("{fast:?} against {general:?}"),
            }
            passed.push(passed_through(&text, provider, &opts.schema) == 1);
            failed |= general.is_err();
        }
        let arena = Bump::new();
        let node = crate::fast::read::read(&text, &arena).unwrap();
        let crate::fast::Node::Arr([tool]) = node else { panic!() };
        let schema_node = tool.get("inputSchema").unwrap();
        let stops = super::stops_at_recursion(schema_node, &Bump::new(), limits);
        // A tool past the limits as a whole fails before its schema is read.
        assert!(!stops || passed[1] || failed, "{schema}");
        stops
    }

    fn tree() -> Value {
        json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/node"}},
               "$defs": {"node": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}})
    }

    #[test]
    fn recursive_references_are_found() {
        assert!(found(tree(), Limits::default()));
        // Through the root, mutually, under anyOf, in a definitions map.
        assert!(found(json!({"type": "object", "properties": {"next": {"$ref": "#"}}}), Limits::default()));
        assert!(found(
            json!({"type": "object", "properties": {"a": {"$ref": "#/definitions/a"}},
                   "definitions": {"a": {"type": "object", "properties": {"b": {"$ref": "#/definitions/b"}}},
                                   "b": {"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#/definitions/a"}, {"type": "null"}]}}}}}),
            Limits::default()
        ));
        // With sibling keywords, overlaid on the target.
        assert!(found(
            json!({"type": "object", "properties": {"r": {"$ref": "#/$defs/n", "description": "d"}}, "$defs": {"n": {"type": "object", "properties": {"c": {"$ref": "#/$defs/n", "title": "t"}}}}}),
            Limits::default()
        ));
        // Any unrolling.
        for unroll in [0, 1, 3, 5] {
            assert!(found(tree(), Limits { max_ref_unroll: unroll, ..Limits::default() }), "{unroll}");
        }
    }

    /// OpenAI's strict mode keeps a recursion as references unless the document holds an open
    /// map or a blocker anywhere (an unused definition included), told alike on both paths.
    #[test]
    fn openai_keeps_the_references_of_a_recursion_without_blockers() {
        let strict_of = |schema: &Value| {
            assert!(found(schema.clone(), Limits::default()), "{schema}");
            let mut opts = ConvertOptions::default();
            opts.schema.strict = true;
            let text = convert_json(&json!([{ "name": "t", "inputSchema": schema }]).to_string(), Provider::OpenAi, &opts).unwrap();
            let out: Value = serde_json::from_str(&text).unwrap();
            (out[0]["function"]["strict"].clone(), out[0]["function"]["parameters"].get("$defs").is_some())
        };
        assert_eq!(strict_of(&tree()), (json!(true), true));
        for blocker in [json!({"type": "object", "additionalProperties": {"type": "string"}}), json!({"not": {"type": "string"}})] {
            let mut schema = tree();
            schema["$defs"]["unused"] = blocker;
            assert_eq!(strict_of(&schema), (json!(false), true), "{schema}");
        }
    }

    #[test]
    fn anything_else_goes_the_general_way() {
        // Not recursive.
        assert!(!found(json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/s"}}, "$defs": {"s": {"type": "string"}}}), Limits::default()));
        // A recursive reference met after one that cannot be followed, one with escapes.
        assert!(!found(json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}, "b": {"$ref": "#"}}}), Limits::default()));
        assert!(!found(json!({"type": "object", "properties": {"r": {"$ref": "#/$defs/a~1b"}}, "$defs": {"a/b": {"type": "object", "properties": {"c": {"$ref": "#/$defs/a~1b"}}}}}), Limits::default()));
        // Limits met first: depth, nodes.
        assert!(!found(tree(), Limits { max_depth: 3, ..Limits::default() }));
        assert!(!found(tree(), Limits { max_nodes: 4, ..Limits::default() }));
    }

    /// Inlined and written strict, or stopped at the recursion: at every limit around the
    /// schema's own figures, the general path's output or error.
    #[test]
    fn limits_are_met_as_the_general_path_meets_them() {
        let flat = json!({"type": "object", "$defs": {"U": {"type": "object", "properties": {"id": {"type": "string"}}}},
                          "properties": {"a": {"$ref": "#/$defs/U"}, "b": {"type": "array", "items": {"$ref": "#/$defs/U"}}}});
        for schema in [flat, tree()] {
            for max_depth in 1..8 {
                found(schema.clone(), Limits { max_depth, ..Limits::default() });
            }
            for max_nodes in 1..40 {
                found(schema.clone(), Limits { max_nodes, ..Limits::default() });
            }
        }
    }

    /// Wide fan-out spends the expansion budget before the recursion is met: the general path
    /// cuts for the budget and goes on, so the walk must not say it stops.
    #[test]
    fn the_budget_comes_first_when_it_is_spent_first() {
        let mut defs = serde_json::Map::new();
        for i in 0..12 {
            let props: serde_json::Map<String, Value> = (0..12).map(|j| (format!("p{j}"), json!({"$ref": format!("#/$defs/d{}", i + 1)}))).collect();
            defs.insert(format!("d{i}"), json!({"type": "object", "properties": props}));
        }
        defs.insert("d12".into(), json!({"type": "string"}));
        defs.insert("n".into(), json!({"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}));
        // The wide expansion comes first in the walk, the recursive one after it.
        let schema = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}, "loop": {"$ref": "#/$defs/n"}}, "$defs": defs});
        assert!(!found(schema.clone(), Limits::default()));
        // The other way round, the recursion is met first.
        let mut schema = schema;
        let props = schema["properties"].as_object_mut().unwrap();
        let x = props.shift_remove("x").unwrap();
        props.insert("x".into(), x);
        assert!(found(schema, Limits::default()));
    }
}
