//! Which keywords hold subschemas. Everything else is a keyword *value* (or, inside
//! `properties`, a property *name*), never a schema to rewrite: this is what keeps a property
//! called `type`, `format`, `$ref` or `if` a property.

use serde_json::Value;

use crate::error::Result;
use crate::model::JsonObject;
use crate::schema::Cx;
use crate::model::Keyed as _;

/// Keywords whose value is a map from names to subschemas.
pub const MAP_KEYWORDS: &[&str] = &["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/// Keywords whose value is one subschema.
pub const SINGLE_KEYWORDS: &[&str] = &[
    "items",
    "additionalProperties",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Keywords whose value is an array of subschemas (`items` too, in its draft-04 tuple form).
pub const ARRAY_KEYWORDS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems", "items"];

/// What a keyword's value is, by the keyword's name alone (the lists above, as one `match`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keyword {
    /// In [`MAP_KEYWORDS`].
    Map,
    /// In [`SINGLE_KEYWORDS`], except `items`.
    Single,
    /// In [`ARRAY_KEYWORDS`], except `items`.
    Array,
    /// `items`: one subschema, or an array of them (draft 4 tuples).
    Items,
    /// Not a subschema position.
    Other,
}

/// Classifies a keyword (see [`Keyword`]).
pub fn keyword(key: &str) -> Keyword {
    match key {
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => Keyword::Map,
        "items" => Keyword::Items,
        "additionalProperties" | "additionalItems" | "not" | "if" | "then" | "else" | "contains" | "propertyNames"
        | "unevaluatedProperties" | "unevaluatedItems" => Keyword::Single,
        "anyOf" | "oneOf" | "allOf" | "prefixItems" => Keyword::Array,
        _ => Keyword::Other,
    }
}

/// How a keyword holds subschemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A map of named subschemas.
    Map,
    /// One subschema.
    Single,
    /// An array of subschemas.
    Array,
    /// Not a subschema position.
    None,
}

/// Classifies `key` given its value.
pub fn slot(key: &str, value: &Value) -> Slot {
    match (keyword(key), value) {
        (Keyword::Map, Value::Object(_)) => Slot::Map,
        (Keyword::Array | Keyword::Items, Value::Array(_)) => Slot::Array,
        (Keyword::Single | Keyword::Items, Value::Object(_) | Value::Bool(_)) => Slot::Single,
        _ => Slot::None,
    }
}

/// Calls `f` on every direct subschema of `obj`, with the context's path pointing at it.
pub fn for_each_subschema_mut(
    obj: &mut JsonObject,
    cx: &mut Cx,
    f: &mut dyn FnMut(&mut Value, &mut Cx) -> Result<()>,
) -> Result<()> {
    for (key, value) in obj.iter_mut() {
        match slot(key, value) {
            Slot::Map => {
                if let Value::Object(map) = value {
                    cx.at(key, |cx| {
                        for (name, sub) in map.iter_mut() {
                            cx.at(name, |cx| f(sub, cx))?;
                        }
                        Ok(())
                    })?;
                }
            }
            Slot::Single => cx.at(key, |cx| f(value, cx))?,
            Slot::Array => {
                if let Value::Array(items) = value {
                    cx.at(key, |cx| {
                        for (i, sub) in items.iter_mut().enumerate() {
                            cx.at(&i.to_string(), |cx| f(sub, cx))?;
                        }
                        Ok(())
                    })?;
                }
            }
            Slot::None => {}
        }
    }
    Ok(())
}

/// Whether any node of the schema has a `$ref` (a cheap scan that skips the rewrite when not).
pub fn contains_ref(v: &Value, depth: usize) -> bool {
    if depth > 512 {
        return true; // let the bounded resolver decide
    }
    match v {
        Value::Object(o) => {
            o.has("$ref")
                || o.iter().any(|(k, sub)| match slot(k, sub) {
                    Slot::Map => sub.as_object().is_some_and(|m| m.values().any(|s| contains_ref(s, depth + 1))),
                    Slot::Single => contains_ref(sub, depth + 1),
                    Slot::Array => sub.as_array().is_some_and(|a| a.iter().any(|s| contains_ref(s, depth + 1))),
                    Slot::None => false,
                })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_agrees_with_the_lists() {
        for k in MAP_KEYWORDS {
            assert_eq!(keyword(k), Keyword::Map, "{k}");
        }
        for k in SINGLE_KEYWORDS.iter().filter(|k| **k != "items") {
            assert_eq!(keyword(k), Keyword::Single, "{k}");
        }
        for k in ARRAY_KEYWORDS.iter().filter(|k| **k != "items") {
            assert_eq!(keyword(k), Keyword::Array, "{k}");
        }
        assert_eq!(keyword("items"), Keyword::Items);
        for k in ["type", "enum", "format", "required", "description", "Properties", ""] {
            assert_eq!(keyword(k), Keyword::Other, "{k}");
        }
    }
}
