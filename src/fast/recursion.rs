//! Whether a strict mode gives up on a schema for a recursive `$ref`, told from the borrowed
//! tree without inlining anything.
//!
//! The strict modes of OpenAI and Anthropic inline a schema's references first
//! ([`crate::schema::refs::inline_refs_unless_recursive`]) and send the schema without
//! `strict` as soon as that inlining cuts a recursive reference. Most schemas with recursive
//! references (Microsoft Graph's, say) are found so only after the general path has read them
//! into a `Value`, laid out their non-strict form and inlined up to the first cut.
//! [`stops_at_recursion`] walks the same references in the same order, counting what that
//! inlining counts, and says `true` only when it meets the recursion cut before anything else
//! could decide: a limit, the expansion budget, a reference it cannot follow, a reference with
//! sibling keys. The schema is then the pass-through one, which is what the general path
//! sends.
//!
//! The inlining shares expansions (`refs::Shared`), but only where expanding again would give
//! the same tree, within the same budgets and with no reference around it that it expands:
//! such an expansion holds no cut, and counts as much as expanding it. So the walk here, which
//! shares nothing, meets the same first cut.

use super::{Node, Text};
use crate::schema::walk::{keyword, Keyword};
use crate::schema::Limits;

/// Whether the general path's strict inlining of this schema (accepted by `is_clean`, so that
/// its non-strict form is the tree plus `properties: {}` on object nodes without them) stops at
/// a recursive reference before anything else decides.
pub(crate) fn stops_at_recursion(root: &Node, limits: Limits) -> bool {
    // `refs::inline`'s budget: four times the objects of the non-strict form, at least 2,000.
    let soft_budget = (base_objects(root) * 4).max(2_000);
    let mut walk = Walk { root, limits, soft_budget, stack: Vec::new(), nodes: 0, depth: 0 };
    walk.resolve(root) == Dry::Stop
}

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Dry {
    /// Expanded with no cut: go on.
    Go,
    /// A recursive reference is cut: the inlining stops.
    Stop,
    /// Something else decides: the general path must run.
    Unknown,
}

struct Walk<'n, 'a> {
    root: &'n Node<'a>,
    limits: Limits,
    soft_budget: usize,
    /// The references being expanded, outermost first.
    stack: Vec<&'n str>,
    /// `Cx::nodes` and `Cx::depth` as the inlining keeps them.
    nodes: usize,
    depth: usize,
}

impl<'n, 'a> Walk<'n, 'a> {
    /// `refs::resolve`: an object is entered (counted, and checked against the limits).
    fn resolve(&mut self, node: &'n Node<'a>) -> Dry {
        let Node::Obj(entries) = node else { return Dry::Go };
        self.depth += 1;
        self.nodes += 1;
        if self.depth > self.limits.depth_limit() || self.nodes > self.limits.max_nodes {
            return Dry::Unknown;
        }
        let r = self.resolve_object(entries);
        self.depth -= 1;
        r
    }

    /// `refs::resolve_object`, over the subschemas in the order of the map.
    fn resolve_object(&mut self, entries: &'n [(Text<'a>, Node<'a>)]) -> Dry {
        if let Some((_, Node::Str(reference))) = entries.iter().find(|(k, _)| *k == "$ref") {
            return self.resolve_ref(reference.as_str(), entries);
        }
        for (key, value) in entries.iter() {
            if *key == "$defs" || *key == "definitions" {
                continue;
            }
            let r = match (keyword(key), value) {
                (Keyword::Map, Node::Obj(map)) => self.all(map.iter().map(|(_, sub)| sub)),
                (Keyword::Array | Keyword::Items, Node::Arr(items)) => self.all(items.iter()),
                (Keyword::Single | Keyword::Items, Node::Obj(_) | Node::Bool(_)) => self.resolve(value),
                _ => Dry::Go,
            };
            if r != Dry::Go {
                return r;
            }
        }
        Dry::Go
    }

    fn all(&mut self, subs: impl Iterator<Item = &'n Node<'a>>) -> Dry {
        for sub in subs {
            let r = self.resolve(sub);
            if r != Dry::Go {
                return r;
            }
        }
        Dry::Go
    }

    /// `refs::resolve_ref` for a reference with no sibling keys.
    fn resolve_ref(&mut self, reference: &'n str, entries: &'n [(Text<'a>, Node<'a>)]) -> Dry {
        if entries.iter().any(|(k, _)| *k != "$ref" && *k != "$defs" && *k != "definitions") {
            return Dry::Unknown; // siblings overlay the target
        }
        let Some(target) = lookup(self.root, reference) else { return Dry::Unknown };
        let seen = self.stack.iter().filter(|r| **r == reference).count();
        if self.nodes > self.soft_budget {
            return Dry::Unknown; // cut for the budget, and the inlining goes on
        }
        if seen >= self.limits.max_ref_unroll {
            return Dry::Stop;
        }
        self.stack.push(reference);
        let r = self.resolve(target);
        self.stack.pop();
        r
    }
}

/// `refs::lookup` for the references it reads without decoding (`#` and `#/a/b` with no `%`
/// or `~`); `None` for the rest, which the general path resolves.
fn lookup<'n, 'a>(root: &'n Node<'a>, reference: &str) -> Option<&'n Node<'a>> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        return Some(root);
    }
    if fragment.contains(['%', '~']) {
        return None;
    }
    let mut target = root;
    for token in fragment.strip_prefix('/')?.split('/') {
        target = match target {
            Node::Obj(entries) => entries.iter().find(|(k, _)| *k == token).map(|(_, v)| v)?,
            Node::Arr(items) if !token.starts_with('+') && (token == "0" || !token.starts_with('0')) => items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(target)
}

/// `refs::count_nodes` of the non-strict form of a schema that `is_clean` accepted: its
/// objects, and the `properties: {}` that [`Node::write_schema`] adds, found as it finds them.
fn base_objects(node: &Node) -> usize {
    let Node::Obj(entries) = node else { return objects(node) };
    let mut n = 1;
    let (mut object, mut has_properties) = (false, false);
    for (k, v) in entries.iter() {
        match (keyword(k), v) {
            (Keyword::Map, Node::Obj(map)) => {
                has_properties |= *k == "properties";
                n += 1 + map.iter().map(|(_, sub)| base_objects(sub)).sum::<usize>();
            }
            (Keyword::Array | Keyword::Items, Node::Arr(items)) => n += items.iter().map(base_objects).sum::<usize>(),
            (Keyword::Single | Keyword::Items, sub) => n += base_objects(sub),
            (_, value) => {
                if *k == "type" {
                    object = match value {
                        Node::Str(t) => *t == "object",
                        Node::Arr(ts) => ts.iter().any(|t| t.as_str() == Some("object")),
                        _ => false,
                    };
                }
                has_properties |= *k == "properties";
                n += objects(value);
            }
        }
    }
    n + usize::from(object && !has_properties)
}

/// The objects of a JSON value.
fn objects(node: &Node) -> usize {
    match node {
        Node::Obj(entries) => 1 + entries.iter().map(|(_, v)| objects(v)).sum::<usize>(),
        Node::Arr(items) => items.iter().map(objects).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use bumpalo::Bump;
    use serde_json::{json, Value};

    use crate::convert::{convert, convert_json, ConvertOptions};
    use crate::fast::passed_through;
    use crate::providers::Provider;
    use crate::schema::Limits;

    /// Whether the strict JSON API sent the schema through the pass-through path, after checking
    /// that its output is the general path's for OpenAI and Anthropic.
    fn found(schema: Value, limits: Limits) -> bool {
        let tools = json!([{ "name": "t", "inputSchema": schema }]);
        let text = tools.to_string();
        let mut opts = ConvertOptions::default();
        opts.schema.strict = true;
        opts.schema.limits = limits;
        let mut passed = Vec::new();
        for provider in [Provider::OpenAi, Provider::Anthropic] {
            let (fast, general) = (convert_json(&text, provider, &opts), convert(tools.clone(), provider, &opts));
            match (&fast, &general) {
                (Ok(f), Ok(g)) => assert_eq!(*f, g.tools.to_string(), "{provider:?}: {schema}"),
                (Err(f), Err(g)) => assert_eq!(f.code, g.code),
                _ => panic!("{fast:?} against {general:?}"),
            }
            passed.push(passed_through(&text, provider, &opts.schema) == 1);
        }
        assert_eq!(passed[0], passed[1], "{schema}");
        let arena = Bump::new();
        let node = crate::fast::read::read(&text, &arena).unwrap();
        let crate::fast::Node::Arr([tool]) = node else { panic!() };
        let schema_node = tool.get("inputSchema").unwrap();
        assert_eq!(super::stops_at_recursion(schema_node, limits), passed[0], "{schema}");
        passed[0]
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
        // Any unrolling.
        for unroll in [0, 1, 3, 5] {
            assert!(found(tree(), Limits { max_ref_unroll: unroll, ..Limits::default() }), "{unroll}");
        }
    }

    #[test]
    fn anything_else_goes_the_general_way() {
        // Not recursive.
        assert!(!found(json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/s"}}, "$defs": {"s": {"type": "string"}}}), Limits::default()));
        // A recursive reference with siblings, one that cannot be followed, one with escapes.
        assert!(!found(
            json!({"type": "object", "properties": {"r": {"$ref": "#/$defs/n", "description": "d"}}, "$defs": {"n": {"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}}}}),
            Limits::default()
        ));
        assert!(!found(json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}, "b": {"$ref": "#"}}}), Limits::default()));
        assert!(!found(json!({"type": "object", "properties": {"r": {"$ref": "#/$defs/a~1b"}}, "$defs": {"a/b": {"type": "object", "properties": {"c": {"$ref": "#/$defs/a~1b"}}}}}), Limits::default()));
        // Limits met first: depth, nodes.
        assert!(!found(tree(), Limits { max_depth: 3, ..Limits::default() }));
        assert!(!found(tree(), Limits { max_nodes: 4, ..Limits::default() }));
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
