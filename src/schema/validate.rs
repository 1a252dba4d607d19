//! Checks a JSON value against a JSON Schema: what the client does with a tool's
//! `structuredContent` and its `outputSchema` (MCP: clients SHOULD validate structured results).
//!
//! The keywords that decide most documents are checked (drafts 4 to 2020-12): `type` (one or
//! several; `integer` is any number without a fraction), `enum`, `const`, `properties`,
//! `required`, `additionalProperties`, `minProperties`, `maxProperties`, `dependentRequired`,
//! `items` (a schema, or draft 4-7's array of schemas with `additionalItems`), `prefixItems`,
//! `minItems`, `maxItems`, `uniqueItems`, `contains`, `minLength`, `maxLength` (in characters),
//! `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers, or draft 4's
//! booleans), `multipleOf`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, boolean
//! schemas, and local `$ref`s (`#`, `#/$defs/...`, any JSON pointer into the document). Others
//! (`pattern`, `format`, `patternProperties`, `unevaluated*`, `$dynamicRef`) are not checked: a
//! document is never refused for them. The work is bounded (depth and steps), so a hostile
//! schema cannot hang the caller; past the bound the rest is not checked.

use serde_json::{Map, Value};

use crate::model::json_type;

/// Where a document breaks its schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// A JSON pointer into the document (`""` for its root).
    pub path: String,
    /// What is wrong, for people.
    pub message: String,
}

/// The most violations reported.
const MAX_VIOLATIONS: usize = 20;
/// The deepest nesting of schemas followed (references included).
const MAX_DEPTH: usize = 64;
/// The most schema nodes visited for one document.
const MAX_STEPS: usize = 100_000;

/// The ways `instance` breaks `schema` (at most 20; none when it is valid).
pub fn validate(schema: &Value, instance: &Value) -> Vec<Violation> {
    let mut v = Validator { root: schema, steps: 0, out: Vec::new() };
    v.check(schema, instance, &mut String::new(), 0);
    v.out
}

struct Validator<'a> {
    root: &'a Value,
    steps: usize,
    out: Vec<Violation>,
}

impl<'a> Validator<'a> {
    fn fail(&mut self, path: &str, message: String) {
        if self.out.len() < MAX_VIOLATIONS {
            self.out.push(Violation { path: path.to_owned(), message });
        }
    }

    /// Whether `instance` is valid, recording nothing (for `anyOf`, `oneOf`, `not`, `if`, `contains`).
    fn is_valid(&mut self, schema: &'a Value, instance: &Value, depth: usize) -> bool {
        let kept = std::mem::take(&mut self.out);
        self.check(schema, instance, &mut String::new(), depth);
        let ok = self.out.is_empty();
        self.out = kept;
        ok
    }

    fn check(&mut self, schema: &'a Value, instance: &Value, path: &mut String, depth: usize) {
        self.steps += 1;
        if depth > MAX_DEPTH || self.steps > MAX_STEPS {
            return;
        }
        let s = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return self.fail(path, "no value is allowed here (the schema is false)".into()),
            Value::Object(s) => s,
            _ => return,
        };
        if let Some(Value::String(r)) = s.get("$ref") {
            // A reference that leads nowhere (or outside the document) is not checked.
            if let Some(target) = resolve(self.root, r) {
                self.check(target, instance, path, depth + 1);
            }
        }
        self.types(s, instance, path);
        if let Some(Value::Array(values)) = s.get("enum") {
            if !values.iter().any(|v| same(v, instance)) {
                self.fail(path, format!("{} is not one of {}", brief(instance), brief(&Value::Array(values.clone()))));
            }
        }
        if let Some(c) = s.get("const") {
            if !same(c, instance) {
                self.fail(path, format!("{} is not {}", brief(instance), brief(c)));
            }
        }
        match instance {
            Value::Object(o) => self.object(s, o, path, depth),
            Value::Array(a) => self.array(s, a, path, depth),
            Value::String(text) => {
                let n = text.chars().count() as u64;
                if let Some(min) = s.get("minLength").and_then(Value::as_u64).filter(|m| n < *m) {
                    self.fail(path, format!("a string of {n} characters, fewer than minLength {min}"));
                }
                if let Some(max) = s.get("maxLength").and_then(Value::as_u64).filter(|m| n > *m) {
                    self.fail(path, format!("a string of {n} characters, more than maxLength {max}"));
                }
            }
            Value::Number(_) => self.number(s, instance, path),
            _ => {}
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = s.get(key) else { continue };
            match key {
                "allOf" => {
                    for b in branches {
                        self.check(b, instance, path, depth + 1);
                    }
                }
                _ => {
                    let matching = branches.iter().filter(|b| self.is_valid(b, instance, depth + 1)).count();
                    if key == "anyOf" && matching == 0 {
                        self.fail(path, format!("{} matches none of anyOf's {} schemas", brief(instance), branches.len()));
                    }
                    if key == "oneOf" && matching != 1 {
                        self.fail(path, format!("{} matches {matching} of oneOf's {} schemas, not exactly one", brief(instance), branches.len()));
                    }
                }
            }
        }
        if let Some(not) = s.get("not") {
            if self.is_valid(not, instance, depth + 1) {
                self.fail(path, format!("{} matches the schema under not", brief(instance)));
            }
        }
        if let Some(cond) = s.get("if") {
            let branch = if self.is_valid(cond, instance, depth + 1) { s.get("then") } else { s.get("else") };
            if let Some(b) = branch {
                self.check(b, instance, path, depth + 1);
            }
        }
    }

    fn types(&mut self, s: &Map<String, Value>, instance: &Value, path: &str) {
        let allowed: Vec<&str> = match s.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => return,
        };
        let fits = |t: &str| match (t, instance) {
            ("integer", Value::Number(n)) => n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0),
            ("number", Value::Number(_)) => true,
            (t, v) => t == json_type(v),
        };
        if !allowed.iter().any(|t| fits(t)) {
            self.fail(path, format!("{} where the schema wants {}", json_type(instance), allowed.join(" or ")));
        }
    }

    fn object(&mut self, s: &'a Map<String, Value>, o: &Map<String, Value>, path: &mut String, depth: usize) {
        if let Some(Value::Array(required)) = s.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !o.contains_key(name) {
                    self.fail(path, format!("the required property \"{name}\" is missing"));
                }
            }
        }
        let n = o.len() as u64;
        if let Some(min) = s.get("minProperties").and_then(Value::as_u64).filter(|m| n < *m) {
            self.fail(path, format!("{n} properties, fewer than minProperties {min}"));
        }
        if let Some(max) = s.get("maxProperties").and_then(Value::as_u64).filter(|m| n > *m) {
            self.fail(path, format!("{n} properties, more than maxProperties {max}"));
        }
        if let Some(Value::Object(deps)) = s.get("dependentRequired") {
            for (name, needs) in deps.iter().filter(|(k, _)| o.contains_key(k.as_str())) {
                for need in needs.as_array().into_iter().flatten().filter_map(Value::as_str) {
                    if !o.contains_key(need) {
                        self.fail(path, format!("\"{name}\" is present, so \"{need}\" is required"));
                    }
                }
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        // With patternProperties (not checked), what is "additional" is not known: not checked either.
        let additional = s.get("additionalProperties").filter(|_| !s.contains_key("patternProperties"));
        for (name, value) in o {
            let sub = match props.and_then(|p| p.get(name)) {
                Some(sub) => sub,
                None => match additional {
                    Some(Value::Bool(false)) => {
                        self.fail(path, format!("the property \"{name}\" is not allowed (additionalProperties is false)"));
                        continue;
                    }
                    Some(sub) => sub,
                    None => continue,
                },
            };
            let len = path.len();
            push_token(path, name);
            self.check(sub, value, path, depth + 1);
            path.truncate(len);
        }
    }

    fn array(&mut self, s: &'a Map<String, Value>, a: &[Value], path: &mut String, depth: usize) {
        let n = a.len() as u64;
        if let Some(min) = s.get("minItems").and_then(Value::as_u64).filter(|m| n < *m) {
            self.fail(path, format!("{n} items, fewer than minItems {min}"));
        }
        if let Some(max) = s.get("maxItems").and_then(Value::as_u64).filter(|m| n > *m) {
            self.fail(path, format!("{n} items, more than maxItems {max}"));
        }
        if s.get("uniqueItems") == Some(&Value::Bool(true)) {
            if let Some(i) = (1..a.len()).find(|&i| a[..i].iter().any(|x| same(x, &a[i]))) {
                self.fail(path, format!("item {i} repeats an earlier one (uniqueItems)"));
            }
        }
        // The items each schema covers: 2020-12's prefixItems + items, or draft 4-7's array form
        // of items + additionalItems.
        let (prefix, rest): (&[Value], Option<&Value>) = match (s.get("prefixItems"), s.get("items")) {
            (Some(Value::Array(p)), items) => (p, items),
            (_, Some(Value::Array(p))) => (p, s.get("additionalItems")),
            (_, items) => (&[], items),
        };
        for (i, item) in a.iter().enumerate() {
            let Some(sub) = prefix.get(i).or(rest) else { break };
            let len = path.len();
            push_token(path, &i.to_string());
            self.check(sub, item, path, depth + 1);
            path.truncate(len);
        }
        if let Some(c) = s.get("contains") {
            if !a.iter().any(|item| self.is_valid(c, item, depth + 1)) {
                self.fail(path, "no item matches contains".into());
            }
        }
    }

    /// Numbers are written as JSON writes them (no float formatting in the module).
    fn number(&mut self, s: &Map<String, Value>, value: &Value, path: &str) {
        let n = value.as_f64().unwrap_or(0.0);
        let bound = |k: &str| s.get(k).filter(|b| b.is_number());
        // Draft 4: exclusiveMinimum/Maximum are booleans that make minimum/maximum exclusive.
        let flag = |k: &str| s.get(k) == Some(&Value::Bool(true));
        let at = |b: &Value| b.as_f64().unwrap_or(0.0);
        if let Some(min) = bound("minimum").filter(|m| n < at(m) || (flag("exclusiveMinimum") && n == at(m))) {
            self.fail(path, format!("{value} is below the minimum {min}"));
        }
        if let Some(max) = bound("maximum").filter(|m| n > at(m) || (flag("exclusiveMaximum") && n == at(m))) {
            self.fail(path, format!("{value} is above the maximum {max}"));
        }
        if let Some(min) = bound("exclusiveMinimum").filter(|m| n <= at(m)) {
            self.fail(path, format!("{value} is not above the exclusive minimum {min}"));
        }
        if let Some(max) = bound("exclusiveMaximum").filter(|m| n >= at(m)) {
            self.fail(path, format!("{value} is not below the exclusive maximum {max}"));
        }
        if let Some(m) = bound("multipleOf").filter(|m| at(m) > 0.0) {
            let q = n / at(m);
            if (q - q.round()).abs() > 1e-9 * q.abs().max(1.0) {
                self.fail(path, format!("{value} is not a multiple of {m}"));
            }
        }
    }
}

/// JSON Schema equality: numbers by value (`1` equals `1.0`), objects regardless of key order.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
        _ => a == b,
    }
}

/// A local reference's target: `#` or `#/json/pointer` into the root.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    if !pointer.starts_with('/') {
        return None;
    }
    let mut at = root;
    for token in pointer[1..].split('/') {
        let token = crate::protocol::auth::percent_decode(token).replace("~1", "/").replace("~0", "~");
        at = match at {
            Value::Object(m) => m.get(&token)?,
            Value::Array(a) => a.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(at)
}

fn push_token(path: &mut String, token: &str) {
    path.push('/');
    path.push_str(&token.replace('~', "~0").replace('/', "~1"));
}

/// A value as a message shows it: its JSON, cut at 60 characters.
fn brief(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(schema: Value, instance: Value) -> Vec<String> {
        validate(&schema, &instance).into_iter().map(|v| v.path).collect()
    }

    #[test]
    fn types_enums_and_consts() {
        assert!(validate(&json!({"type": "integer"}), &json!(3.0)).is_empty());
        assert_eq!(validate(&json!({"type": "integer"}), &json!(3.5))[0].message, "number where the schema wants integer");
        assert!(validate(&json!({"type": ["string", "null"]}), &json!(null)).is_empty());
        assert_eq!(paths(json!({"type": ["string", "null"]}), json!(1)), [""]);
        assert!(validate(&json!({"enum": [1, "a", {"x": [1]}]}), &json!({"x": [1.0]})).is_empty());
        assert_eq!(paths(json!({"enum": [1, 2]}), json!(3)), [""]);
        assert_eq!(paths(json!({"const": "a"}), json!("b")), [""]);
        assert!(validate(&json!(true), &json!(1)).is_empty());
        assert_eq!(paths(json!(false), json!(1)), [""]);
    }

    #[test]
    fn objects() {
        let schema = json!({
            "type": "object",
            "properties": {"sum": {"type": "number"}, "a/b": {"type": "string"}, "n": {"type": "object", "properties": {"x": {"minimum": 0}}}},
            "required": ["sum", "expression"],
            "additionalProperties": false,
        });
        let v = validate(&schema, &json!({"sum": "4", "a/b": 1, "n": {"x": -1}, "extra": true}));
        let got: Vec<_> = v.iter().map(|v| (v.path.as_str(), v.message.as_str())).collect();
        assert_eq!(
            got,
            [
                ("", "the required property \"expression\" is missing"),
                ("/sum", "string where the schema wants number"),
                ("/a~1b", "number where the schema wants string"),
                ("/n/x", "-1 is below the minimum 0"),
                ("", "the property \"extra\" is not allowed (additionalProperties is false)"),
            ]
        );
        assert_eq!(paths(json!({"additionalProperties": {"type": "string"}}), json!({"a": 1})), ["/a"]);
        assert!(validate(&json!({"additionalProperties": false, "patternProperties": {"^x": {}}}), &json!({"xy": 1})).is_empty());
        assert_eq!(paths(json!({"minProperties": 2}), json!({"a": 1})), [""]);
        assert_eq!(paths(json!({"dependentRequired": {"a": ["b"]}}), json!({"a": 1})), [""]);
    }

    #[test]
    fn arrays_strings_and_numbers() {
        assert_eq!(paths(json!({"items": {"type": "string"}, "minItems": 3}), json!(["a", 1])), ["", "/1"]);
        assert_eq!(paths(json!({"prefixItems": [{"type": "string"}], "items": false}), json!(["a", 1])), ["/1"]);
        assert_eq!(paths(json!({"items": [{"type": "string"}], "additionalItems": false}), json!(["a", 1])), ["/1"]);
        assert_eq!(paths(json!({"uniqueItems": true}), json!([1, 1.0])), [""]);
        assert_eq!(paths(json!({"contains": {"const": 2}}), json!([1])), [""]);
        assert_eq!(paths(json!({"minLength": 2}), json!("é")), [""]);
        assert!(validate(&json!({"maxLength": 1}), &json!("é")).is_empty());
        assert_eq!(paths(json!({"exclusiveMinimum": 0}), json!(0)), [""]);
        assert_eq!(paths(json!({"minimum": 0, "exclusiveMinimum": true}), json!(0)), [""]);
        assert!(validate(&json!({"multipleOf": 0.1}), &json!(0.3)).is_empty());
        assert_eq!(paths(json!({"multipleOf": 2}), json!(3)), [""]);
        // Not checked: a document is never refused for them.
        assert!(validate(&json!({"pattern": "^a$", "format": "email"}), &json!("b")).is_empty());
    }

    #[test]
    fn combinators_conditionals_and_references() {
        let nullable = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
        assert!(validate(&nullable, &json!(null)).is_empty());
        assert_eq!(paths(nullable, json!(1)), [""]);
        assert_eq!(paths(json!({"oneOf": [{"type": "number"}, {"type": "integer"}]}), json!(1)), [""]);
        assert_eq!(paths(json!({"not": {"type": "null"}}), json!(null)), [""]);
        let cond = json!({"if": {"properties": {"k": {"const": "a"}}}, "then": {"required": ["a"]}, "else": {"required": ["b"]}});
        assert_eq!(paths(cond.clone(), json!({"k": "a"})), [""]);
        assert!(validate(&cond, &json!({"k": "x", "b": 1})).is_empty());
        let tree = json!({
            "$defs": {"node": {"type": "object", "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
            "$ref": "#/$defs/node",
        });
        assert_eq!(paths(tree, json!({"v": 1, "kids": [{"v": 2}, {"v": "x"}]})), ["/kids/1/v"]);
        // A reference to itself, or nowhere: bounded, or not checked.
        assert!(validate(&json!({"$ref": "#"}), &json!(1)).is_empty());
        assert!(validate(&json!({"$ref": "https://elsewhere/schema"}), &json!(1)).is_empty());
        // Exponential anyOf nesting stays bounded (past the bound, the rest is not checked).
        let mut s = json!({"type": "string"});
        // 2^17 leaves: more than the step bound.
        for _ in 0..17 {
            let mut m = Map::new();
            m.insert("anyOf".into(), Value::Array(vec![s.clone(), s]));
            s = Value::Object(m);
        }
        assert!(paths(s, json!(1)).len() <= 1);
    }

    #[test]
    fn violations_are_capped() {
        let many = Value::Array((0..100).map(|_| json!(1)).collect());
        assert_eq!(validate(&json!({"items": {"type": "string"}}), &many).len(), MAX_VIOLATIONS);
    }
}
