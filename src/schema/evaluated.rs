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

use std::collections::HashMap;

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

/// Subschemas visited at most per question: past it the answer is [`Evaluated::Unknown`], as
/// for a reference that cannot be followed. Each `$ref` target is evaluated once (remembered),
/// so a document meets it only by its size; the bound keeps a hostile one's work fixed.
const MAX_VISITS: usize = 4096;

/// The items the keywords of `node` other than its own `unevaluatedItems` evaluate; `$ref`s are
/// looked up in `root` (without one, a `$ref` is [`Evaluated::Unknown`]).
pub fn evaluated_items(node: &JsonObject, root: Option<&Value>) -> Evaluated {
    walk(node, root).0
}

/// [`evaluated_items`], and how many subschemas it visited.
fn walk(node: &JsonObject, root: Option<&Value>) -> (Evaluated, usize) {
    let mut walk = Walk { root, targets: HashMap::new(), visits: 0 };
    let evaluated = walk.object(node, 0);
    (evaluated, walk.visits)
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

/// One question's walk: the document, what each `$ref` seen so far leads to, the work done.
struct Walk<'a> {
    root: Option<&'a Value>,
    /// A reference's target's answer; [`Evaluated::Unknown`] while it is being evaluated (a
    /// reference back to it is recursive).
    targets: HashMap<&'a str, Evaluated>,
    visits: usize,
}

impl<'a> Walk<'a> {
    fn schema(&mut self, node: &'a Value, depth: usize) -> Evaluated {
        match node {
            // Boolean schemas evaluate nothing (`false` is never valid at all).
            Value::Bool(_) => Evaluated::Prefix(0),
            Value::Object(o) => self.object(o, depth),
            _ => Evaluated::Unknown,
        }
    }

    fn reference(&mut self, reference: &'a str, depth: usize) -> Evaluated {
        if let Some(known) = self.targets.get(reference) {
            return *known;
        }
        let Some(root) = self.root else { return Evaluated::Unknown };
        let Some(target) = lookup(root, reference) else { return Evaluated::Unknown };
        self.targets.insert(reference, Evaluated::Unknown);
        let evaluated = self.schema(target, depth + 1);
        self.targets.insert(reference, evaluated);
        evaluated
    }

    fn object(&mut self, o: &'a JsonObject, depth: usize) -> Evaluated {
        self.visits += 1;
        if depth > MAX_DEPTH || self.visits > MAX_VISITS {
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
                "$ref" => match value.as_str() {
                    Some(reference) => self.reference(reference, depth),
                    None => Evaluated::Unknown,
                },
                "contains" | "$dynamicRef" | "$recursiveRef" => Evaluated::Unknown,
                "allOf" => match value {
                    Value::Array(branches) => branches.iter().fold(Evaluated::Prefix(0), |e, b| e.and(self.schema(b, depth + 1))),
                    _ => Evaluated::Unknown,
                },
                // The valid branches' (a `false` branch never is one).
                "anyOf" | "oneOf" => match value {
                    Value::Array(branches) => {
                        let mut valid = branches.iter().filter(|b| **b != Value::Bool(false));
                        match valid.next() {
                            Some(first) => {
                                let first = self.schema(first, depth + 1);
                                valid.fold(first, |e, b| e.or(self.schema(b, depth + 1)))
                            }
                            None => Evaluated::Prefix(0),
                        }
                    }
                    _ => Evaluated::Unknown,
                },
                // `if` and `then` where `if` holds, `else` where it does not.
                "if" => {
                    let condition = self.schema(value, depth + 1);
                    let then = o.find("then").map_or(Evaluated::Prefix(0), |s| self.schema(s, depth + 1));
                    let otherwise = o.find("else").map_or(Evaluated::Prefix(0), |s| self.schema(s, depth + 1));
                    condition.and(then).or(otherwise)
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

    /// `$defs.d{i}`: `allOf` of four `$ref`s to `d{i+1}`, the last one a tuple of one.
    fn fan_out(levels: usize) -> Value {
        let mut defs = serde_json::Map::new();
        for i in 0..levels {
            defs.insert(format!("d{i}"), json!({"allOf": vec![json!({"$ref": format!("#/$defs/d{}", i + 1)}); 4]}));
        }
        defs.insert(format!("d{levels}"), json!({"prefixItems": [{"type": "string"}]}));
        json!({"$defs": defs})
    }

    /// Each `$ref` target is evaluated once: four references to each of 15 levels are 4^15
    /// paths, a few visits per level here; 30 levels pass `$ref`s' depth (unknown), as quickly.
    #[test]
    fn references_fanning_out_are_evaluated_once() {
        let node = json!({"type": "array", "$ref": "#/$defs/d0", "unevaluatedItems": false});
        let root = fan_out(15);
        assert_eq!(walk(node.as_object().unwrap(), Some(&root)), (Evaluated::Prefix(1), 5 * 15 + 2));
        let root = fan_out(30);
        let (evaluated, visits) = walk(node.as_object().unwrap(), Some(&root));
        assert_eq!(evaluated, Evaluated::Unknown);
        assert!(visits < 5 * 30, "{visits}");
        // Past the budget of visits the answer is unknown.
        let wide = json!({"allOf": vec![json!({"allOf": [{"prefixItems": [{}]}]}); MAX_VISITS]});
        let (evaluated, visits) = walk(wide.as_object().unwrap(), None);
        assert!(evaluated == Evaluated::Unknown && visits < 2 * MAX_VISITS, "{evaluated:?} {visits}");
        let narrow = json!({"allOf": vec![json!({"allOf": [{"prefixItems": [{}]}]}); MAX_VISITS / 4]});
        assert_eq!(evaluated_items(narrow.as_object().unwrap(), None), Evaluated::Prefix(1));
    }
}
