//! Mapping a model's arguments back to what the MCP server expects.
//!
//! Conversions that change the argument domain record an [`ArgPlan`]: Gemini's string-only
//! enums (`"16"` must go back to `16`), nullable widening for strict modes (a `null` for an
//! optional field means "not given" and is removed), and a wrapped non-object root (`{input: x}`
//! goes back to `x`). [`ArgPlan::apply`] undoes exactly those changes and nothing else.

use serde_json::{Map, Value};

use crate::error::{ErrorCode, Result};
use crate::model::{read_array, read_field, read_object, read_opt_field, read_string, string, Put as _, Read};
use crate::text::Owned as _;

/// How to map one argument value back. Empty plans are omitted.
///
/// JSON form ([`ArgPlan::to_value`], in a serialised name map): `{unwrap?, properties?, items?,
/// anyOf?, enumValues?, nullMeansAbsent?, ref?, defs?}`, each field absent when empty,
/// `properties` and `defs` sorted by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ArgPlan {
    /// The root was wrapped: take this property's value as the whole argument.
    pub unwrap: Option<String>,
    /// Plans for object properties.
    pub properties: PropertyPlans,
    /// Plan for array items.
    pub items: Option<Box<ArgPlan>>,
    /// Plans for `anyOf` branches: the one that changes the value most wins (the first of
    /// those that change it as much).
    pub any_of: Vec<ArgPlan>,
    /// Original enum values, whose string forms the provider saw.
    pub enum_values: Vec<Value>,
    /// Optional properties (by name) that strict mode made nullable: a `null` means "absent".
    pub null_means_absent: Vec<String>,
    /// The value is that of a schema kept as a reference (OpenAI strict keeps recursion):
    /// apply the root's plan of that definition, or the root plan itself for `"#"`.
    pub reference: Option<Box<str>>,
    /// At the root: the plans of the definitions that [`ArgPlan::reference`]s name (boxed: a
    /// plan is on every node, definitions only on the root of a few).
    pub defs: Option<Box<PropertyPlans>>,
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
            && self.reference.is_none()
            && self.defs.is_none()
    }

    /// Sets the plan of a property (skipping empty plans).
    pub fn set_property(&mut self, name: &str, plan: ArgPlan) {
        if !plan.is_empty() {
            self.properties.insert(name.owned(), plan);
        }
    }

    /// The JSON form (see [`ArgPlan`]).
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        if let Some(u) = &self.unwrap {
            o.put("unwrap", string(u));
        }
        if !self.properties.is_empty() {
            let props = self.properties.iter().map(|(k, p)| (k.clone(), p.to_value())).collect();
            o.put("properties", Value::Object(props));
        }
        if let Some(items) = &self.items {
            o.put("items", items.to_value());
        }
        if !self.any_of.is_empty() {
            o.put("anyOf", Value::Array(self.any_of.iter().map(Self::to_value).collect()));
        }
        if !self.enum_values.is_empty() {
            o.put("enumValues", Value::Array(self.enum_values.clone()));
        }
        if !self.null_means_absent.is_empty() {
            o.put("nullMeansAbsent", self.null_means_absent.clone().into());
        }
        if let Some(r) = &self.reference {
            o.put("ref", string(r));
        }
        if let Some(defs) = &self.defs {
            o.put("defs", Value::Object(defs.iter().map(|(k, p)| (k.clone(), p.to_value())).collect()));
        }
        Value::Object(o)
    }

    /// Reads the JSON form back. Absent fields are empty, `null` is accepted for `unwrap` and
    /// `items`, unknown fields are ignored; a field of the wrong type is an `INVALID_INPUT`
    /// error naming it.
    pub fn from_value(v: &Value) -> Result<Self> {
        Self::read(v).map_err(|e| e.into_error(ErrorCode::InvalidInput, "invalid argument plan"))
    }

    pub(crate) fn read(v: &Value) -> Read<Self> {
        let o = read_object(v)?;
        let plans = |v: &Value| {
            let mut props = PropertyPlans::default();
            for (k, p) in read_object(v)? {
                props.insert(k.clone(), Self::read(p).map_err(|e| e.at_key(k))?);
            }
            Ok(props)
        };
        let properties = read_field(o, "properties", plans)?;
        Ok(Self {
            unwrap: read_opt_field(o, "unwrap", read_string)?,
            properties: properties.unwrap_or_default(),
            items: read_opt_field(o, "items", Self::read)?.map(Box::new),
            any_of: read_field(o, "anyOf", |v| read_array(v, Self::read))?.unwrap_or_default(),
            enum_values: read_field(o, "enumValues", |v| read_array(v, |x| Ok(x.clone())))?.unwrap_or_default(),
            null_means_absent: read_field(o, "nullMeansAbsent", |v| read_array(v, read_string))?.unwrap_or_default(),
            reference: read_opt_field(o, "ref", read_string)?.map(String::into_boxed_str),
            defs: read_field(o, "defs", plans)?.filter(|d| !d.is_empty()).map(Box::new),
        })
    }

    /// Removes the references to definitions that have no plan (nothing to do there), on the
    /// root plan and the plans of its definitions.
    pub(crate) fn drop_dangling_references(&mut self) {
        fn strip(plan: &mut ArgPlan, defs: &[String]) {
            if plan.reference.as_deref().is_some_and(|r| r != "#" && !defs.iter().any(|d| **d == *r)) {
                plan.reference = None;
            }
            for (_, p) in plan.properties.0.iter_mut() {
                strip(p, defs);
            }
            plan.properties.0.retain(|(_, p)| !p.is_empty());
            if let Some(items) = &mut plan.items {
                strip(items, defs);
                if items.is_empty() {
                    plan.items = None;
                }
            }
            plan.any_of.iter_mut().for_each(|p| strip(p, defs));
            if plan.any_of.iter().all(ArgPlan::is_empty) {
                plan.any_of.clear();
            }
        }
        let mut defs = self.defs.take();
        let names: Vec<String> = defs.iter().flat_map(|d| d.keys().cloned()).collect();
        strip(self, &names);
        for (_, def) in defs.iter_mut().flat_map(|d| d.0.iter_mut()) {
            strip(def, &names);
        }
        self.defs = defs;
    }

    /// Maps `value` back. Values the plan does not recognise pass through unchanged.
    pub fn apply(&self, value: Value) -> Value {
        self.apply_at(value, 0, self, &mut Vec::new())
    }

    /// `depth`: of `value` in the arguments. `root`: the plan that holds the definitions a
    /// reference names. `followed`: the references followed on this value so far, each taken
    /// once (a definition applied again to the same value would do what it did the first time,
    /// and a cycle of references through `anyOf`s would otherwise branch without end).
    fn apply_at<'p>(&'p self, value: Value, depth: usize, root: &'p ArgPlan, followed: &mut Vec<&'p str>) -> Value {
        if depth > 128 {
            return value;
        }
        let value = match self.reference.as_deref() {
            Some(name) if followed.contains(&name) => return value,
            Some(name) => {
                followed.push(name);
                let target = if name == "#" { Some(root) } else { root.defs.as_ref().and_then(|d| d.get(name)) };
                match target {
                    Some(def) => def.apply_at(value, depth, root, followed),
                    None => value,
                }
            }
            None => value,
        };
        let value = self.apply_inner(value, depth, root, followed);
        match (&self.unwrap, value) {
            (Some(prop), Value::Object(mut o)) => o.remove(prop).unwrap_or(Value::Null),
            (_, other) => other,
        }
    }

    fn apply_inner<'p>(&'p self, value: Value, depth: usize, root: &'p ArgPlan, followed: &mut Vec<&'p str>) -> Value {
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
                        *v = plan.apply_at(taken, depth + 1, root, &mut Vec::new());
                    }
                }
                self.any_of_apply(Value::Object(o), depth, root, followed)
            }
            Value::Array(items) => match self.items.as_deref() {
                Some(plan) => Value::Array(items.into_iter().map(|v| plan.apply_at(v, depth + 1, root, &mut Vec::new())).collect()),
                None => self.any_of_apply(Value::Array(items), depth, root, followed),
            },
            other => self.any_of_apply(other, depth, root, followed),
        }
    }

    /// The branch whose plan changes the value most is taken to be the one it was made for: a
    /// branch's plan touches only what that branch declares, so in a union of objects that
    /// share some optional fields (each made nullable by strict mode), the first branch to
    /// remove a shared `null` would leave the others' in place.
    fn any_of_apply<'p>(&'p self, value: Value, depth: usize, root: &'p ArgPlan, followed: &mut Vec<&'p str>) -> Value {
        let mut best: Option<(usize, Value)> = None;
        for branch in &self.any_of {
            // `followed` is shared by the branches: a reference is followed once on this value
            // (a union of references to one another would otherwise branch without end).
            let mapped = branch.apply_at(value.clone(), depth, root, followed);
            let changed = changes(&value, &mapped, 0);
            if changed > best.as_ref().map_or(0, |(n, _)| *n) {
                best = Some((changed, mapped));
            }
        }
        best.map_or(value, |(_, mapped)| mapped)
    }
}

/// How many values differ between `before` and what a plan made of it (a member removed, a
/// value replaced), counted down to where they differ.
fn changes(before: &Value, after: &Value, depth: usize) -> usize {
    match (before, after) {
        _ if depth > 128 => usize::from(before != after),
        (Value::Object(a), Value::Object(b)) => a.iter().map(|(k, v)| b.get(k).map_or(1, |w| changes(v, w, depth + 1))).sum(),
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a.iter().zip(b).map(|(v, w)| changes(v, w, depth + 1)).sum(),
        _ => usize::from(before != after),
    }
}

/// Plans for object properties by name, in name order: a vector kept sorted, searched by
/// bisection (the wasm of a `BTreeMap` is large, and plans are few). Plans are boxed so that an
/// insertion out of order moves small entries (a schema may list thousands of properties in
/// reverse order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PropertyPlans(Vec<(String, Box<ArgPlan>)>);

impl PropertyPlans {
    /// Whether there is no plan.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of plans.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    fn find(&self, name: &str) -> std::result::Result<usize, usize> {
        // Names usually arrive in order (a serialised plan): check the end first.
        match self.0.last() {
            Some((last, _)) if last.as_str() < name => Err(self.0.len()),
            _ => self.0.binary_search_by(|(k, _)| k.as_str().cmp(name)),
        }
    }

    /// The plan of a property.
    pub fn get(&self, name: &str) -> Option<&ArgPlan> {
        self.find(name).ok().map(|i| &*self.0[i].1)
    }

    /// Sets the plan of a property, returning the one it replaces.
    pub fn insert(&mut self, name: String, plan: ArgPlan) -> Option<ArgPlan> {
        match self.find(&name) {
            Ok(i) => Some(std::mem::replace(&mut *self.0[i].1, plan)),
            Err(i) => {
                self.0.insert(i, (name, Box::new(plan)));
                None
            }
        }
    }

    /// `(name, plan)` pairs in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &ArgPlan)> {
        self.0.iter().map(|(k, p)| (k, &**p))
    }

    /// The names, in order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(k, _)| k)
    }
}

impl<'a> IntoIterator for &'a PropertyPlans {
    type Item = (&'a String, &'a ArgPlan);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (String, Box<ArgPlan>)>, fn(&'a (String, Box<ArgPlan>)) -> (&'a String, &'a ArgPlan)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, p)| (k, &**p))
    }
}

impl FromIterator<(String, ArgPlan)> for PropertyPlans {
    /// Later plans for a name replace earlier ones.
    fn from_iter<I: IntoIterator<Item = (String, ArgPlan)>>(iter: I) -> Self {
        let mut plans = Self::default();
        for (k, p) in iter {
            plans.insert(k, p);
        }
        plans
    }
}

serialize_via_value!(ArgPlan);

/// The string form a provider sees for an enum value: strings as is, others as JSON text.
pub fn enum_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => crate::text::to_string(other),
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

    /// A union of objects sharing optional fields (strict mode made them all nullable): the
    /// branch that accounts for most of the value maps it, not the first that touches it.
    #[test]
    fn the_any_of_branch_that_changes_most_maps_the_value() {
        let a = ArgPlan { null_means_absent: vec!["m".into(), "params".into()], ..ArgPlan::default() };
        let mut b = ArgPlan { null_means_absent: vec!["m".into(), "params".into()], ..ArgPlan::default() };
        b.set_property("params", ArgPlan { null_means_absent: vec!["team".into()], ..ArgPlan::default() });
        let mut sel = ArgPlan { any_of: vec![a, b], ..ArgPlan::default() };
        let mut root = ArgPlan::default();
        root.set_property("sel", sel.clone());
        assert_eq!(root.apply(json!({"sel":{"op":"b","params":{"team":null},"m":null}})), json!({"sel":{"op":"b","params":{}}}));
        // A value only the first branch touches, and ties, stay with the first branch.
        assert_eq!(root.apply(json!({"sel":{"op":"a","params":{"id":"x"},"m":null}})), json!({"sel":{"op":"a","params":{"id":"x"}}}));
        sel.any_of.push(ArgPlan { enum_values: vec![json!(1)], ..ArgPlan::default() });
        assert_eq!(sel.apply(json!("1")), json!(1));
        assert_eq!(sel.apply(json!("2")), json!("2"));
        // Two branches that change the value as much, differently: the first wins.
        let absent = |name: &str| ArgPlan { null_means_absent: vec![name.into()], ..ArgPlan::default() };
        let tie = ArgPlan { any_of: vec![absent("a"), absent("b")], ..ArgPlan::default() };
        assert_eq!(tie.apply(json!({"a": null, "b": null})), json!({"b": null}));
        let tie = ArgPlan { any_of: vec![absent("b"), absent("a")], ..ArgPlan::default() };
        assert_eq!(tie.apply(json!({"a": null, "b": null})), json!({"a": null}));
    }

    #[test]
    fn property_plans_stay_sorted_and_unique() {
        let leaf = |n: i64| ArgPlan { enum_values: vec![json!(n)], ..ArgPlan::default() };
        let mut props = PropertyPlans::default();
        for (i, name) in ["m", "c", "x", "a", "m", "b", "z"].into_iter().enumerate() {
            let replaced = props.insert(name.into(), leaf(i as i64));
            assert_eq!(replaced.is_some(), i == 4, "{name}");
        }
        assert_eq!(props.keys().map(String::as_str).collect::<Vec<_>>(), ["a", "b", "c", "m", "x", "z"]);
        assert_eq!(props.len(), 6);
        assert_eq!(props.get("m"), Some(&leaf(4)));
        assert_eq!(props.get("n"), None);
        assert_eq!((&props).into_iter().count(), props.iter().count());
        let collected: PropertyPlans = [("b".to_string(), leaf(1)), ("a".to_string(), leaf(2)), ("b".to_string(), leaf(3))].into_iter().collect();
        assert_eq!(collected.iter().map(|(k, p)| (k.as_str(), p)).collect::<Vec<_>>(), [("a", &leaf(2)), ("b", &leaf(3))]);
        // Equality does not depend on insertion order.
        let mut other = PropertyPlans::default();
        for name in ["z", "x", "m", "c", "b", "a"] {
            other.insert(name.into(), props.get(name).unwrap().clone());
        }
        assert_eq!(other, props);
    }

    #[test]
    fn plans_round_trip_through_json() {
        let mut p = ArgPlan::default();
        p.set_property("a", ArgPlan { enum_values: vec![json!(1)], ..ArgPlan::default() });
        let back = ArgPlan::from_value(&p.to_value()).unwrap();
        assert_eq!(back, p);
        assert!(ArgPlan::default().is_empty());
    }

    fn full_plan() -> ArgPlan {
        let leaf = ArgPlan { enum_values: vec![json!(1), json!("x"), json!(null)], ..ArgPlan::default() };
        let mut root = ArgPlan {
            unwrap: Some("input".into()),
            items: Some(Box::new(leaf.clone())),
            any_of: vec![leaf.clone(), ArgPlan { null_means_absent: vec!["n".into()], ..ArgPlan::default() }],
            enum_values: vec![json!(2.5), json!({"k": [true]})],
            null_means_absent: vec!["a".into(), "b".into()],
            ..ArgPlan::default()
        };
        root.set_property("zeta", leaf.clone());
        root.set_property("alpha", ArgPlan { items: Some(Box::new(leaf)), ..ArgPlan::default() });
        root
    }

    #[test]
    fn json_form_is_exact_and_round_trips() {
        let p = full_plan();
        let v = p.to_value();
        // Key order: the field order; properties sorted by name; empty fields absent.
        let text = serde_json::to_string(&v).unwrap();
        assert_eq!(
            text,
            concat!(
                r#"{"unwrap":"input","properties":{"alpha":{"items":{"enumValues":[1,"x",null]}},"zeta":{"enumValues":[1,"x",null]}},"#,
                r#""items":{"enumValues":[1,"x",null]},"anyOf":[{"enumValues":[1,"x",null]},{"nullMeansAbsent":["n"]}],"#,
                r#""enumValues":[2.5,{"k":[true]}],"nullMeansAbsent":["a","b"]}"#
            )
        );
        assert_eq!(serde_json::to_string(&p).unwrap(), text, "Serialize gives the same JSON");
        assert_eq!(ArgPlan::from_value(&v).unwrap(), p);
        assert_eq!(ArgPlan::default().to_value(), json!({}));
    }

    #[test]
    fn reading_is_lenient_where_serde_was_and_strict_on_types() {
        // Unknown keys ignored, nulls for optional fields, unsorted properties.
        let p = ArgPlan::from_value(&json!({"unwrap":null,"items":null,"extra":1,"properties":{"b":{},"a":{"unwrap":"x"}}})).unwrap();
        assert_eq!(p.unwrap, None);
        assert_eq!(p.properties.keys().collect::<Vec<_>>(), ["a", "b"]);
        for (bad, field) in [
            (json!([]), "the value must be an object, got array"),
            (json!({"unwrap": 1}), "unwrap must be a string, got number"),
            (json!({"properties": null}), "properties must be an object, got null"),
            (json!({"properties": {"a": {"anyOf": [{}, {"enumValues": "x"}]}}}), "properties.a.anyOf[1].enumValues must be an array, got string"),
            (json!({"nullMeansAbsent": ["a", 2]}), "nullMeansAbsent[1] must be a string, got number"),
            (json!({"items": {"items": 3}}), "items.items must be an object, got number"),
        ] {
            let e = ArgPlan::from_value(&bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput);
            assert_eq!(e.message, format!("invalid argument plan: {field}"));
        }
    }
}
