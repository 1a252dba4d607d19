//! Checks a JSON value against a JSON Schema: what the client does with a tool's
//! `structuredContent` and its `outputSchema` (MCP: clients SHOULD validate structured results).
//!
//! The keywords that decide most documents are checked (drafts 4 to 2020-12): `type` (one or
//! several; `integer` is any number without a fraction; a type name no draft has refuses
//! nothing; OpenAPI 3.0's `nullable: true` beside it allows `null` too, as Ajv has it), `enum`,
//! `const`, `properties`, `required`, `additionalProperties`, `minProperties`, `maxProperties`,
//! `dependentRequired`, `items` (a schema, or draft 4-7's array of schemas with
//! `additionalItems`), `prefixItems`, `minItems`, `maxItems`, `uniqueItems`,
//! `contains` (with `minContains`, `maxContains`), `minLength`, `maxLength` (in characters),
//! `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers, or draft 4's
//! booleans), `multipleOf`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, boolean
//! schemas, and local `$ref`s (`#`, `#/$defs/...`, any JSON pointer into the document; with a
//! `$schema` of drafts 4 to 7 what stands beside a `$ref` is ignored, as those drafts say).
//! Integers are compared exactly (IDs beyond 2^53 stay apart). Others (`pattern`, `format`,
//! `patternProperties`, `unevaluated*`, `$dynamicRef`, `$id` scopes) are not checked: a document
//! is never refused for them. The work is bounded (depth 128, 200,000 steps, comparisons
//! counted): past a bound the verdict is unknown, and an unknown verdict refuses nothing (a
//! `oneOf` or a `not` would otherwise count unchecked branches wrongly).

use serde_json::{Map, Value};

use crate::model::json_type;
use crate::text::{to_string, Owned as _};


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
const MAX_DEPTH: usize = 128;
/// The most steps (schema nodes visited, values compared) for one document.
const MAX_STEPS: usize = 200_000;

/// The ways `instance` breaks `schema` (at most 20; none when it is valid, and none when the
/// check went past its bounds: what could not be checked is never a violation).
pub fn validate(schema: &Value, instance: &Value) -> Vec<Violation> {
    let draft7 = schema.get("$schema").and_then(Value::as_str).is_some_and(crate::schema::names_draft_4_to_7);
    let mut v = Validator { root: schema, draft7, steps: 0, cut: false, quiet: 0, invalid: false, out: Vec::new() };
    v.check(schema, instance, &mut String::new(), 0);
    if v.cut {
        return Vec::new();
    }
    v.out
}

struct Validator<'a> {
    root: &'a Value,
    /// Drafts 4 to 7: keywords beside `$ref` are ignored.
    draft7: bool,
    steps: usize,
    /// A bound was reached: the verdict is unknown.
    cut: bool,
    /// Inside `is_valid`: violations are noted, not written.
    quiet: u32,
    invalid: bool,
    out: Vec<Violation>,
}

impl<'a> Validator<'a> {
    /// A violation; its message is only written when it is kept.
    fn fail(&mut self, path: &str, message: impl FnOnce() -> String) {
        if self.failed() {
            let message = message();
            self.keep(path, message);
        }
    }

    /// Notes a violation; whether its message is to be kept. (`fail`'s parts that do not depend
    /// on the message, out of line, so that its ~25 calls do not each copy them.)
    #[inline(never)]
    fn failed(&mut self) -> bool {
        self.invalid = true;
        self.quiet == 0 && self.out.len() < MAX_VIOLATIONS
    }

    /// Keeps a violation with its message.
    #[inline(never)]
    fn keep(&mut self, path: &str, message: String) {
        self.out.push(Violation { path: path.owned(), message });
    }

    /// Counts work; false once past the bound.
    fn step(&mut self, n: usize) -> bool {
        self.steps += n;
        if self.steps > MAX_STEPS {
            self.cut = true;
        }
        !self.cut
    }

    /// Whether `instance` is valid, writing nothing (for `anyOf`, `oneOf`, `not`, `if`, `contains`).
    fn is_valid(&mut self, schema: &'a Value, instance: &Value, depth: usize) -> bool {
        let (kept, quiet) = (std::mem::replace(&mut self.invalid, false), self.quiet);
        self.quiet += 1;
        self.check(schema, instance, &mut String::new(), depth);
        let ok = !self.invalid;
        (self.invalid, self.quiet) = (kept, quiet);
        ok
    }

    fn check(&mut self, schema: &'a Value, instance: &Value, path: &mut String, depth: usize) {
        if depth > MAX_DEPTH {
            self.cut = true;
        }
        if !self.step(1) {
            return;
        }
        let s = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return self.fail(path, || "no value is allowed here (the schema is false)".owned()),
            Value::Object(s) => s,
            _ => return,
        };
        if let Some(Value::String(r)) = s.get("$ref") {
            // A reference that leads nowhere (or outside the document) is not checked.
            if let Some(target) = crate::schema::refs::lookup(self.root, r) {
                self.check(target, instance, path, depth + 1);
            }
            if self.draft7 {
                return;
            }
        }
        self.types(s, instance, path);
        if let Some(Value::Array(values)) = s.get("enum") {
            if self.step(values.len()) && !values.iter().any(|v| same(v, instance)) {
                self.fail(path, || match values.len() {
                    1 => format!("{} is not the one value of enum", brief(instance)),
                    n => format!("{} is not one of the {n} values of enum", brief(instance)),
                });
            }
        }
        if let Some(c) = s.get("const") {
            if !same(c, instance) {
                self.fail(path, || format!("{} is not {}", brief(instance), brief(c)));
            }
        }
        match instance {
            Value::Object(o) => self.object(s, o, path, depth),
            Value::Array(a) => self.array(s, a, path, depth),
            Value::String(text) => {
                let n = text.chars().count() as u64;
                if let Some(min) = s.get("minLength").and_then(Value::as_u64).filter(|m| n < *m) {
                    self.fail(path, || format!("a string of {}, fewer than minLength {min}", counted(n, "character", "characters")));
                }
                if let Some(max) = s.get("maxLength").and_then(Value::as_u64).filter(|m| n > *m) {
                    self.fail(path, || format!("a string of {}, more than maxLength {max}", counted(n, "character", "characters")));
                }
            }
            Value::Number(_) => self.number(s, instance, path),
            _ => {}
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = s.get(key) else { continue };
            if key == "allOf" {
                for b in branches {
                    self.check(b, instance, path, depth + 1);
                }
                continue;
            }
            let matching = branches.iter().filter(|b| self.is_valid(b, instance, depth + 1)).count();
            if key == "anyOf" && matching == 0 {
                self.fail(path, || format!("{} matches none of anyOf's {}", brief(instance), counted(branches.len() as u64, "schema", "schemas")));
            }
            if key == "oneOf" && matching != 1 {
                self.fail(path, || format!("{} matches {matching} of oneOf's {}, not exactly one", brief(instance), counted(branches.len() as u64, "schema", "schemas")));
            }
        }
        if let Some(not) = s.get("not") {
            if self.is_valid(not, instance, depth + 1) {
                self.fail(path, || format!("{} matches the schema under not", brief(instance)));
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
        const KNOWN: [&str; 7] = ["null", "boolean", "object", "array", "number", "string", "integer"];
        // A type name no draft has (draft 3's "any"), or none at all: nothing is refused for it.
        if allowed.is_empty() || allowed.iter().any(|t| !KNOWN.contains(t)) {
            return;
        }
        // OpenAPI 3.0's `nullable: true` beside a `type` lets `null` through too, as Ajv (the MCP SDK
        // client's checker) reads it by default; `enum` and `const` still apply to that null.
        if instance.is_null() && s.get("nullable") == Some(&Value::Bool(true)) {
            return;
        }
        let fits = |t: &str| match (t, instance) {
            ("integer", Value::Number(n)) => n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0),
            ("number", Value::Number(_)) => true,
            (t, v) => t == json_type(v),
        };
        if !allowed.iter().any(|t| fits(t)) {
            self.fail(path, || format!("{} where the schema wants {}", json_type(instance), allowed.join(" or ")));
        }
    }

    fn object(&mut self, s: &'a Map<String, Value>, o: &Map<String, Value>, path: &mut String, depth: usize) {
        if let Some(Value::Array(required)) = s.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !o.contains_key(name) {
                    self.fail(path, || format!("the required property \"{name}\" is missing"));
                }
            }
        }
        let n = o.len() as u64;
        if let Some(min) = s.get("minProperties").and_then(Value::as_u64).filter(|m| n < *m) {
            self.fail(path, || format!("{n} properties, fewer than minProperties {min}"));
        }
        if let Some(max) = s.get("maxProperties").and_then(Value::as_u64).filter(|m| n > *m) {
            self.fail(path, || format!("{n} properties, more than maxProperties {max}"));
        }
        if let Some(Value::Object(deps)) = s.get("dependentRequired") {
            for (name, needs) in deps.iter().filter(|(k, _)| o.contains_key(k.as_str())) {
                for need in needs.as_array().into_iter().flatten().filter_map(Value::as_str) {
                    if !o.contains_key(need) {
                        self.fail(path, || format!("\"{name}\" is present, so \"{need}\" is required"));
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
                        self.fail(path, || format!("the property \"{name}\" is not allowed (additionalProperties is false)"));
                        continue;
                    }
                    Some(sub) => sub,
                    None => continue,
                },
            };
            let len = path.len();
            crate::text::push_pointer_token(path, name);
            self.check(sub, value, path, depth + 1);
            path.truncate(len);
        }
    }

    fn array(&mut self, s: &'a Map<String, Value>, a: &[Value], path: &mut String, depth: usize) {
        let n = a.len() as u64;
        if let Some(min) = s.get("minItems").and_then(Value::as_u64).filter(|m| n < *m) {
            self.fail(path, || format!("{}, fewer than minItems {min}", counted(n, "item", "items")));
        }
        if let Some(max) = s.get("maxItems").and_then(Value::as_u64).filter(|m| n > *m) {
            self.fail(path, || format!("{}, more than maxItems {max}", counted(n, "item", "items")));
        }
        if s.get("uniqueItems") == Some(&Value::Bool(true)) {
            for i in 1..a.len() {
                if !self.step(i) {
                    break;
                }
                if a[..i].iter().any(|x| same(x, &a[i])) {
                    self.fail(path, || format!("item {i} repeats an earlier one (uniqueItems)"));
                    break;
                }
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
            crate::text::push_pointer_token(path, &i.to_string());
            self.check(sub, item, path, depth + 1);
            path.truncate(len);
        }
        if let Some(c) = s.get("contains") {
            let min = s.get("minContains").and_then(Value::as_u64).unwrap_or(1);
            let max = s.get("maxContains").and_then(Value::as_u64);
            let found = a.iter().filter(|item| self.is_valid(c, item, depth + 1)).count() as u64;
            if found < min {
                self.fail(path, || format!("{found} items match contains, fewer than {min}"));
            }
            if let Some(max) = max.filter(|m| found > *m) {
                self.fail(path, || format!("{found} items match contains, more than maxContains {max}"));
            }
        }
    }

    /// Numbers are compared exactly when both are integers, and written as JSON writes them
    /// (no float formatting in the module).
    fn number(&mut self, s: &Map<String, Value>, value: &Value, path: &str) {
        use std::cmp::Ordering::{Equal, Greater, Less};
        let bound = |k: &str| s.get(k).filter(|b| b.is_number());
        // Draft 4: exclusiveMinimum/Maximum are booleans that make minimum/maximum exclusive.
        let flag = |k: &str| s.get(k) == Some(&Value::Bool(true));
        let cmp = |b: &Value| compare(value, b);
        if let Some(min) = bound("minimum").filter(|m| cmp(m) == Some(Less) || (flag("exclusiveMinimum") && cmp(m) == Some(Equal))) {
            self.fail(path, || format!("{} is below the minimum {}", to_string(value), to_string(min)));
        }
        if let Some(max) = bound("maximum").filter(|m| cmp(m) == Some(Greater) || (flag("exclusiveMaximum") && cmp(m) == Some(Equal))) {
            self.fail(path, || format!("{} is above the maximum {}", to_string(value), to_string(max)));
        }
        if let Some(min) = bound("exclusiveMinimum").filter(|m| matches!(cmp(m), Some(Less | Equal))) {
            self.fail(path, || format!("{} is not above the exclusive minimum {}", to_string(value), to_string(min)));
        }
        if let Some(max) = bound("exclusiveMaximum").filter(|m| matches!(cmp(m), Some(Greater | Equal))) {
            self.fail(path, || format!("{} is not below the exclusive maximum {}", to_string(value), to_string(max)));
        }
        if let Some(m) = bound("multipleOf") {
            let off = match (integer(value), integer(m)) {
                (Some(n), Some(d)) if d != 0 => n % d != 0,
                _ => {
                    let (n, d) = (value.as_f64().unwrap_or(0.0), m.as_f64().unwrap_or(0.0));
                    let q = n / d;
                    d > 0.0 && q.is_finite() && (q - q.round()).abs() > 1e-9 * q.abs().max(1.0)
                }
            };
            if off {
                self.fail(path, || format!("{} is not a multiple of {}", to_string(value), to_string(m)));
            }
        }
    }
}

/// A JSON number as an exact integer, when it is one (a float with no fraction too, within i128).
fn integer(v: &Value) -> Option<i128> {
    match v.as_i64() {
        Some(i) => Some(i128::from(i)),
        None => match v.as_u64() {
            Some(u) => Some(i128::from(u)),
            None => v.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 1.0e38).map(|f| f as i128),
        },
    }
}

/// Two numbers' order: exact between integers, as floats otherwise.
fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (integer(a), integer(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// JSON Schema equality: numbers by value (`1` equals `1.0`; integers exactly), objects
/// regardless of key order.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(_), Value::Number(_)) => compare(a, b) == Some(std::cmp::Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
        _ => a == b,
    }
}

/// A value as a message shows it, without writing a large one whole: a scalar as JSON (a string
/// cut at 60 characters), an array or object by its size.
fn brief(v: &Value) -> String {
    match v {
        Value::Array(a) => format!("an array of {}", counted(a.len() as u64, "item", "items")),
        Value::Object(o) => format!("an object of {}", counted(o.len() as u64, "property", "properties")),
        Value::String(text) if text.chars().count() > 60 => {
            let cut: String = text.chars().take(60).collect();
            format!("{}...", to_string(&Value::String(cut)))
        }
        _ => to_string(v),
    }
}

/// `n` and its noun, `one` for 1 ("1 item"), `many` for any other count.
fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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
    fn counts_of_one_are_singular() {
        let message = |schema: Value, instance: Value| validate(&schema, &instance).remove(0).message;
        assert_eq!(message(json!({"minLength": 2}), json!("é")), "a string of 1 character, fewer than minLength 2");
        assert_eq!(message(json!({"maxLength": 0}), json!("é")), "a string of 1 character, more than maxLength 0");
        assert_eq!(message(json!({"maxLength": 1}), json!("ab")), "a string of 2 characters, more than maxLength 1");
        assert_eq!(message(json!({"minItems": 2}), json!([1])), "1 item, fewer than minItems 2");
        assert_eq!(message(json!({"maxItems": 0}), json!([1])), "1 item, more than maxItems 0");
        assert_eq!(message(json!({"minItems": 1}), json!([])), "0 items, fewer than minItems 1");
        assert_eq!(message(json!({"enum": ["a"]}), json!("b")), "\"b\" is not the one value of enum");
        assert_eq!(message(json!({"enum": ["a", "c"]}), json!("b")), "\"b\" is not one of the 2 values of enum");
        assert_eq!(message(json!({"anyOf": [{"type": "string"}]}), json!(1)), "1 matches none of anyOf's 1 schema");
        assert_eq!(message(json!({"oneOf": [{"type": "string"}]}), json!(1)), "1 matches 0 of oneOf's 1 schema, not exactly one");
        assert_eq!(brief(&json!([1])), "an array of 1 item");
        assert_eq!(brief(&json!({"a": 1})), "an object of 1 property");
        assert_eq!(brief(&json!({"a": 1, "b": 2})), "an object of 2 properties");
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
        assert!(validate(&json!({"$ref": "https://elsewhere/schema", "type": "number"}), &json!(1)).is_empty());
        assert_eq!(paths(json!({"$ref": "https://elsewhere/schema", "type": "string"}), json!(1)), [""]);
        // Exponential anyOf nesting stays bounded (past the bound, the rest is not checked).
        let mut s = json!({"type": "string"});
        // 2^17 leaves: more than the step bound.
        for _ in 0..17 {
            let mut m = Map::new();
            m.insert("anyOf".into(), Value::Array(vec![s.clone(), s]));
            s = Value::Object(m);
        }
        assert_eq!(paths(s, json!(1)), Vec::<String>::new(), "past the bounds nothing is refused");
    }

    #[test]
    fn what_cannot_be_checked_is_never_a_violation() {
        // A pydantic discriminated union over many items: past the step bound, oneOf would count
        // unchecked branches as matches; the document is accepted instead.
        let schema = json!({
            "$defs": {"cat": {"properties": {"kind": {"const": "cat"}}, "required": ["kind"]}, "dog": {"properties": {"kind": {"const": "dog"}}, "required": ["kind"]}},
            "type": "array",
            "items": {"oneOf": [{"$ref": "#/$defs/cat"}, {"$ref": "#/$defs/dog"}]},
        });
        let many = Value::Array((0..30_000).map(|i| json!({"kind": if i % 2 == 0 { "cat" } else { "dog" }})).collect());
        assert!(validate(&schema, &many).is_empty());
        let few = json!([{"kind": "cat"}, {"kind": "cow"}]);
        assert_eq!(paths(schema, few), ["/1"]);
        // A recursive tree deeper than the depth bound.
        let tree = json!({"$defs": {"n": {"oneOf": [{"type": "null"}, {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}]}}, "$ref": "#/$defs/n"});
        let mut deep = json!(null);
        for _ in 0..100 {
            deep = json!({"next": deep});
        }
        assert!(validate(&tree, &deep).is_empty());
    }

    #[test]
    fn integers_are_compared_exactly() {
        assert!(validate(&json!({"uniqueItems": true}), &json!([1234567890123456789_i64, 1234567890123456790_i64])).is_empty());
        assert!(validate(&json!({"uniqueItems": true}), &json!([-9223372036854775807_i64, -9223372036854775806_i64])).is_empty());
        assert!(validate(&json!({"exclusiveMaximum": 9007199254740993_u64}), &json!(9007199254740992_u64)).is_empty());
        assert!(validate(&json!({"exclusiveMaximum": 18446744073709551616.0}), &json!(u64::MAX)).is_empty());
        assert_eq!(paths(json!({"enum": [9007199254740993_u64]}), json!(9007199254740992_u64)), [""]);
        assert_eq!(paths(json!({"multipleOf": 2}), json!(3000000001_u64)), [""]);
        assert!(validate(&json!({"multipleOf": 2}), &json!(4.0)).is_empty());
    }

    /// `nullable: true` (OpenAPI 3.0) allows null beside a `type`, as Ajv's default does; its
    /// `enum` still decides, and `nullable` alone or `false` changes nothing.
    #[test]
    fn openapi_nullable_allows_null_beside_a_type() {
        let schema = json!({"type": "object", "properties": {"assignee": {"type": "string", "nullable": true}, "n": {"type": ["integer"], "nullable": true}}});
        assert!(validate(&schema, &json!({"assignee": null, "n": null})).is_empty());
        assert_eq!(paths(schema, json!({"assignee": 1, "n": "x"})), ["/assignee", "/n"]);
        assert_eq!(paths(json!({"type": "string", "nullable": true, "enum": ["a"]}), json!(null)), [""]);
        assert_eq!(paths(json!({"type": "string", "nullable": false}), json!(null)), [""]);
        assert_eq!(paths(json!({"type": "string", "nullable": "yes"}), json!(null)), [""]);
        assert!(validate(&json!({"nullable": false}), &json!(null)).is_empty());
    }

    #[test]
    fn newer_and_older_drafts() {
        assert!(validate(&json!({"contains": {"const": 1}, "minContains": 0}), &json!([])).is_empty());
        assert_eq!(paths(json!({"contains": {"const": 1}, "maxContains": 1}), json!([1, 1])), [""]);
        assert!(validate(&json!({"type": "any"}), &json!(1)).is_empty());
        // Draft 7: what stands beside $ref is ignored; 2019-09 on, it applies.
        let beside = |dialect: &str| json!({"$schema": dialect, "$defs": {"a": {"type": "object"}}, "$ref": "#/$defs/a", "additionalProperties": false});
        assert!(validate(&beside("http://json-schema.org/draft-07/schema#"), &json!({"a": 1})).is_empty());
        assert_eq!(paths(beside("https://json-schema.org/draft/2020-12/schema"), json!({"a": 1})), [""]);
        // A pointer token with a + and an escape.
        assert_eq!(paths(json!({"$defs": {"a+b c": {"type": "string"}}, "$ref": "#/$defs/a+b%20c"}), json!(1)), [""]);
    }

    #[test]
    fn violations_are_capped() {
        let many = Value::Array((0..100).map(|_| json!(1)).collect());
        assert_eq!(validate(&json!({"items": {"type": "string"}}), &many).len(), MAX_VIOLATIONS);
    }
}
