//! Mapping a model's arguments back to what the MCP server expects.
//!
//! Conversions that change the argument domain record an [`ArgPlan`]: Gemini's string-only
//! enums (`"16"` must go back to `16`), nullable widening for strict modes (a `null` for an
//! optional field means "not given" and is removed), and a wrapped non-object root (`{input: x}`
//! goes back to `x`). [`ArgPlan::apply`] undoes exactly those changes and nothing else.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use serde_json::Value;

/// How to map one argument value back. Empty plans are omitted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArgPlan {
    /// The root was wrapped: take this property's value as the whole argument.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unwrap: Option<String>,
    /// Plans for object properties.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub properties: BTreeMap<String, ArgPlan>,
    /// Plan for array items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Box<ArgPlan>>,
    /// Plans for `anyOf` branches: the first that changes the value wins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub any_of: Vec<ArgPlan>,
    /// Original enum values, whose string forms the provider saw.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub enum_values: Vec<Value>,
    /// Optional properties (by name) that strict mode made nullable: a `null` means "absent".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub null_means_absent: Vec<String>,
}

impl ArgPlan {
    /// Whether the plan changes nothing.
    pub fn is_empty(&self) -> bool {
        self.unwrap.is_none()
            && self.properties.is_empty()
            && self.items.is_none()
            && self.any_of.is_empty()
            && self.enum_values.is_empty()
            && self.null_means_absent.is_empty()
    }

    /// Sets the plan of a property (skipping empty plans).
    pub fn set_property(&mut self, name: &str, plan: ArgPlan) {
        if !plan.is_empty() {
            self.properties.insert(name.to_owned(), plan);
        }
    }

    /// Maps `value` back. Values the plan does not recognise pass through unchanged.
    pub fn apply(&self, value: Value) -> Value {
        self.apply_at(value, 0)
    }

    fn apply_at(&self, value: Value, depth: usize) -> Value {
        if depth > 128 {
            return value;
        }
        let value = self.apply_inner(value, depth);
        match (&self.unwrap, value) {
            (Some(prop), Value::Object(mut o)) => o.remove(prop).unwrap_or(Value::Null),
            (_, other) => other,
        }
    }

    fn apply_inner(&self, value: Value, depth: usize) -> Value {
        match value {
            Value::String(s) if !self.enum_values.is_empty() => {
                match self.enum_values.iter().find(|orig| enum_string(orig) == s) {
                    Some(orig) => orig.clone(),
                    None => Value::String(s),
                }
            }
            Value::Object(mut o) if !self.properties.is_empty() || !self.null_means_absent.is_empty() => {
                for name in &self.null_means_absent {
                    if o.get(name).is_some_and(Value::is_null) {
                        o.remove(name);
                    }
                }
                for (name, plan) in &self.properties {
                    if let Some(v) = o.get_mut(name) {
                        let taken = std::mem::take(v);
                        *v = plan.apply_at(taken, depth + 1);
                    }
                }
                self.any_of_apply(Value::Object(o), depth)
            }
            Value::Array(items) if self.items.is_some() => {
                let plan = self.items.as_deref().cloned().unwrap_or_default();
                Value::Array(items.into_iter().map(|v| plan.apply_at(v, depth + 1)).collect())
            }
            other => self.any_of_apply(other, depth),
        }
    }

    fn any_of_apply(&self, value: Value, depth: usize) -> Value {
        for branch in &self.any_of {
            let mapped = branch.apply_at(value.clone(), depth + 1);
            if mapped != value {
                return mapped;
            }
        }
        value
    }
}

/// The string form a provider sees for an enum value: strings as is, others as JSON text.
pub fn enum_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn enums_nulls_and_unwrap() {
        let mut inner = ArgPlan { enum_values: vec![json!(2), json!(8), json!(true)], ..ArgPlan::default() };
        let mut root = ArgPlan { null_means_absent: vec!["opt".into()], ..ArgPlan::default() };
        root.set_property("base", inner.clone());
        inner.enum_values = vec![json!(1)];
        root.set_property("list", ArgPlan { items: Some(Box::new(inner)), ..ArgPlan::default() });
        let out = root.apply(json!({"base":"8","opt":null,"keep":null,"list":["1","x"]}));
        assert_eq!(out, json!({"base":8,"keep":null,"list":[1,"x"]}));
        let wrapped = ArgPlan { unwrap: Some("input".into()), ..ArgPlan::default() };
        assert_eq!(wrapped.apply(json!({"input":"q"})), json!("q"));
    }

    #[test]
    fn plans_round_trip_through_json() {
        let mut p = ArgPlan::default();
        p.set_property("a", ArgPlan { enum_values: vec![json!(1)], ..ArgPlan::default() });
        let back: ArgPlan = serde_json::from_value(serde_json::to_value(&p).unwrap()).unwrap();
        assert_eq!(back, p);
        assert!(ArgPlan::default().is_empty());
    }
}
