//! Which items of an array the keywords of a schema evaluate, where the schema alone decides
//! it: what an `unevaluatedItems` beside them is left to say.
//!
//! Draft 2020-12's `unevaluatedItems` applies to the items that no other keyword of its schema
//! evaluated, the subschemas applied in place (`$ref`, `allOf`, `anyOf`, `oneOf`, `if`/`then`/
//! `else`) included. Providers that need `items` on every array can say the same with `items`
//! when the evaluated items are a prefix known from the schema: `prefixItems` of length N
//! (its own, a `$ref` target's, an `allOf` branch's: the longest), `items` anywhere in place
//! (every item). Where the instance decides (`contains`, a condition whose branches differ,
//! union branches that differ) or a reference cannot be followed, it is [`Evaluated::Unknown`].

use serde_json::Value;

use crate::model::{JsonObject, Keyed as _};
use crate::schema::refs::lookup;

/// The items a schema's keywords evaluate, whatever the instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evaluated {
    /// The first N items (none for 0).
    Prefix(usize),
    /// Every item (`items`, or a subschema's own `unevaluatedItems`).
    All,
    /// It depends on the instance, or on a reference that cannot be followed here.
    Unknown,
}

impl Evaluated {
    /// What two keywords of one schema evaluate together.
    fn and(self, other: Self) -> Self {
        match (self, other) {
            (Self::All, _) | (_, Self::All) => Self::All,
            (Self::Unknown, _) | (_, Self::Unknown) => Self::Unknown,
            (Self::Prefix(a), Self::Prefix(b)) => Self::Prefix(a.max(b)),
        }
    }

    /// What one of two subschemas evaluates, the instance deciding which: known if both agree.
    fn or(self, other: Self) -> Self {
        if self == other {
            self
        } else {
            Self::Unknown
        }
    }
}

/// `$ref`s followed at most this deep (a recursive one is [`Evaluated::Unknown`]).
const MAX_DEPTH: usize = 32;

/// The items the keywords of `node` other than its own `unevaluatedItems` evaluate; `$ref`s are
/// looked up in `root` (without one, a `$ref` is [`Evaluated::Unknown`]).
pub fn evaluated_items(node: &JsonObject, root: Option<&Value>) -> Evaluated {
    object(node, root, 0)
}

/// The `prefixItems` a chain of `$ref`s from `node` leads to (the first target that has them),
/// looked up in `root`: what inlining the reference would give the node, as its own `prefixItems`
/// overlays the target's (see [`crate::schema::refs`]).
pub fn referenced_prefix<'r>(node: &JsonObject, root: Option<&'r Value>) -> &'r [Value] {
    let (Some(root), Some(mut reference)) = (root, node.find("$ref").and_then(Value::as_str)) else { return &[] };
    for _ in 0..MAX_DEPTH {
        let Some(target) = lookup(root, reference).and_then(Value::as_object) else { return &[] };
        if let Some(Value::Array(prefix)) = target.find("prefixItems").or_else(|| target.find("items").filter(|i| i.is_array())) {
            return prefix;
        }
        match target.find("$ref").and_then(Value::as_str) {
            Some(next) => reference = next,
            None => return &[],
        }
    }
    &[]
}

fn schema(node: &Value, root: Option<&Value>, depth: usize) -> Evaluated {
    match node {
        // Boolean schemas evaluate nothing (`false` is never valid at all).
        Value::Bool(_) => Evaluated::Prefix(0),
        Value::Object(o) => object(o, root, depth),
        _ => Evaluated::Unknown,
    }
}

fn object(o: &JsonObject, root: Option<&Value>, depth: usize) -> Evaluated {
    if depth > MAX_DEPTH {
        return Evaluated::Unknown;
    }
    let mut evaluated = Evaluated::Prefix(0);
    for (key, value) in o {
        let here = match key.as_str() {
            "prefixItems" => match value {
                Value::Array(p) => Evaluated::Prefix(p.len()),
                _ => Evaluated::Unknown,
            },
            // Draft 4's tuple, and its `additionalItems` over the rest.
            "items" => match value {
                Value::Array(_) if o.has("additionalItems") => Evaluated::All,
                Value::Array(p) => Evaluated::Prefix(p.len()),
                Value::Object(_) | Value::Bool(_) => Evaluated::All,
                _ => Evaluated::Unknown,
            },
            // A subschema's own `unevaluatedItems` evaluates what the rest of it leaves.
            "unevaluatedItems" if depth > 0 => Evaluated::All,
            "$ref" => match (root, value.as_str()) {
                (Some(root), Some(reference)) => match lookup(root, reference) {
                    Some(target) => schema(target, Some(root), depth + 1),
                    None => Evaluated::Unknown,
                },
                _ => Evaluated::Unknown,
            },
            "contains" | "$dynamicRef" | "$recursiveRef" => Evaluated::Unknown,
            "allOf" => match value {
                Value::Array(branches) => branches.iter().fold(Evaluated::Prefix(0), |e, b| e.and(schema(b, root, depth + 1))),
                _ => Evaluated::Unknown,
            },
            // The valid branches' (a `false` branch never is one).
            "anyOf" | "oneOf" => match value {
                Value::Array(branches) => {
                    let mut valid = branches.iter().filter(|b| **b != Value::Bool(false)).map(|b| schema(b, root, depth + 1));
                    match valid.next() {
                        Some(first) => valid.fold(first, Evaluated::or),
                        None => Evaluated::Prefix(0),
                    }
                }
                _ => Evaluated::Unknown,
            },
            // `if` and `then` where `if` holds, `else` where it does not.
            "if" => {
                let branch = |k: &str| o.find(k).map_or(Evaluated::Prefix(0), |s| schema(s, root, depth + 1));
                schema(value, root, depth + 1).and(branch("then")).or(branch("else"))
            }
            // `then`/`else` are read with `if` (alone they do nothing); `not` keeps no
            // annotation; the object applicators apply to objects only.
            _ => Evaluated::Prefix(0),
        };
        evaluated = evaluated.and(here);
        if evaluated == Evaluated::All {
            break;
        }
    }
    evaluated
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn of(node: Value, root: &Value) -> Evaluated {
        evaluated_items(node.as_object().unwrap(), Some(root))
    }

    #[test]
    fn prefixes_known_from_the_schema() {
        let root = json!({"$defs": {
            "pair": {"prefixItems": [{}, {}]},
            "alias": {"$ref": "#/$defs/pair", "description": "a pair"},
            "list": {"items": {"type": "string"}},
            "draft4": {"items": [{}, {}, {}]},
            "loop": {"$ref": "#/$defs/loop"},
        }});
        for (node, expected) in [
            (json!({"type": "array"}), Evaluated::Prefix(0)),
            (json!({"prefixItems": [{}], "unevaluatedItems": false}), Evaluated::Prefix(1)),
            (json!({"$ref": "#/$defs/pair"}), Evaluated::Prefix(2)),
            (json!({"$ref": "#/$defs/alias"}), Evaluated::Prefix(2)),
            (json!({"$ref": "#/$defs/draft4", "prefixItems": [{}]}), Evaluated::Prefix(3)),
            (json!({"allOf": [{"prefixItems": [{}]}, {"$ref": "#/$defs/pair"}, {"minItems": 1}]}), Evaluated::Prefix(2)),
            (json!({"anyOf": [{"$ref": "#/$defs/pair"}, {"prefixItems": [true, false]}, false]}), Evaluated::Prefix(2)),
            (json!({"if": {"minItems": 2}, "then": {"prefixItems": [{}]}, "else": {"prefixItems": [{}]}}), Evaluated::Prefix(1)),
            (json!({"then": {"items": {}}, "not": {"items": {}}, "dependentSchemas": {"a": {"items": {}}}}), Evaluated::Prefix(0)),
            // `items` in place: every item.
            (json!({"$ref": "#/$defs/list"}), Evaluated::All),
            (json!({"allOf": [{"items": {}}], "contains": {}}), Evaluated::All),
            (json!({"allOf": [{"prefixItems": [{}], "unevaluatedItems": {}}]}), Evaluated::All),
            (json!({"oneOf": [{"items": true}, {"$ref": "#/$defs/list"}]}), Evaluated::All),
            // The instance decides, or the reference cannot be followed.
            (json!({"contains": {"type": "string"}}), Evaluated::Unknown),
            (json!({"anyOf": [{"prefixItems": [{}]}, {"prefixItems": [{}, {}]}]}), Evaluated::Unknown),
            (json!({"anyOf": [{"items": {}}, {}]}), Evaluated::Unknown),
            (json!({"if": {"prefixItems": [{}]}, "else": {}}), Evaluated::Unknown),
            (json!({"$ref": "#/$defs/missing"}), Evaluated::Unknown),
            (json!({"$ref": "#/$defs/loop"}), Evaluated::Unknown),
            (json!({"$dynamicRef": "#node"}), Evaluated::Unknown),
        ] {
            assert_eq!(of(node.clone(), &root), expected, "{node}");
        }
        // Without the document a `$ref` is not followed.
        assert_eq!(evaluated_items(json!({"$ref": "#/$defs/pair"}).as_object().unwrap(), None), Evaluated::Unknown);
    }

    #[test]
    fn referenced_prefix_follows_the_chain() {
        let root = json!({"$defs": {"pair": {"prefixItems": [{"type": "string"}, {}]}, "alias": {"$ref": "#/$defs/pair"}, "draft4": {"items": [{}]}}});
        let of = |node: Value| referenced_prefix(node.as_object().unwrap(), Some(&root)).len();
        assert_eq!(of(json!({"$ref": "#/$defs/alias"})), 2);
        assert_eq!(of(json!({"$ref": "#/$defs/draft4"})), 1);
        assert_eq!(of(json!({"$ref": "#/$defs/none"})), 0);
        assert_eq!(of(json!({"prefixItems": [{}]})), 0);
    }
}
