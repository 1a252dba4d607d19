//! What a conversion changed and what problems remain, per tool, returned as data.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::model::{string, Put as _};

/// One change or problem, located by a JSON pointer into the tool's input schema.
///
/// JSON form: `{path, rule, message}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// JSON pointer into the input schema (`""` is the root, `/properties/a` a property).
    pub path: String,
    /// Stable rule identifier, e.g. `gemini/strip-keyword`.
    pub rule: &'static str,
    /// What was done, or what is wrong, in words.
    pub message: String,
}

/// The report for one tool.
///
/// JSON form: `{tool, server?, name, strict?, changes, problems}` (`server` and `strict` absent
/// when unknown).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolReport {
    /// The tool's MCP name.
    pub tool: String,
    /// The server it came from, when known.
    pub server: Option<String>,
    /// The name the provider sees.
    pub name: String,
    /// Whether the tool was emitted in strict mode (for providers that have one): `false` when
    /// strict mode was asked for and the tool fell back.
    pub strict: Option<bool>,
    /// Every change made to the schema or the definition.
    pub changes: Vec<Diagnostic>,
    /// Problems that remain: the provider may reject or misuse the tool because of them.
    pub problems: Vec<Diagnostic>,
}

/// The report for a whole conversion.
///
/// JSON form: `{provider, tools, problems}`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The provider converted for.
    pub provider: String,
    /// One entry per input tool, in input order.
    pub tools: Vec<ToolReport>,
    /// Problems concerning the whole set (tool-count limits, duplicates).
    pub problems: Vec<Diagnostic>,
}

/// Makes each diagnostic's path a JSON pointer into `input` (the tool's input schema as given)
/// where the conversion located it in a tree it rewrote, then drops repeats (same path, rule and
/// message: a property copied into several branches is reported once). The rewrites undone:
/// - a `oneOf` read as an `anyOf` (`/anyOf/1` where the input has `oneOf`; past the end of an
///   `anyOf` beside a `oneOf`, the `oneOf`'s entry);
/// - an `anyOf` and a `oneOf` put under an `allOf` (strict mode: `/allOf/0/anyOf/2`);
/// - a type list split into `anyOf` branches (`/anyOf/1` on a node whose `type` is a list: the
///   node itself);
/// - an object's properties (or `required`) copied into its branches (`/anyOf/0/properties/a`
///   where only the object has `a`: the object's).
///
/// A path that leads into an inlined `$ref` goes on into the definition as if it stood in that
/// place (it is not rewritten to the definition's own path: each place is reported), the
/// definition's own rewrites undone there too. What no rewrite explains is left as it is.
pub(crate) fn input_paths(input: &Value, diags: &mut Vec<Diagnostic>) {
    if diags.is_empty() {
        return;
    }
    // Only a rewritten path can repeat another (one place reported from several copies).
    let mut rewritten = Vec::new();
    for (i, d) in diags.iter_mut().enumerate() {
        if d.path.contains('/') {
            if let Some(p) = input_path(input, &d.path) {
                d.path = p;
                rewritten.push(i);
            }
        }
    }
    if rewritten.is_empty() {
        return;
    }
    // A rewritten one equal to one before it is a repeat: found through a set of those before
    // (a tool may have thousands), dropped in one pass.
    let mut repeat = vec![false; diags.len()];
    {
        let mut seen = HashSet::with_capacity(diags.len());
        let mut next = rewritten.iter().peekable();
        for (i, d) in diags.iter().enumerate() {
            let new = seen.insert(d);
            if next.next_if_eq(&&i).is_some() {
                repeat[i] = !new;
            }
        }
    }
    let mut i = 0;
    diags.retain(|_| {
        i += 1;
        !repeat[i - 1]
    });
}

/// The pointer of [`input_paths`] for `path`, when it differs.
fn input_path(input: &Value, path: &str) -> Option<String> {
    // Every rewrite starts at a branch: a path through none is the input's as it is (most are,
    // and a tool may have thousands).
    if !["/anyOf/", "/oneOf/", "/allOf/"].iter().any(|b| path.contains(b)) {
        return None;
    }
    let tokens: Vec<String> = path.split('/').skip(1).map(|t| if t.contains('~') { t.replace("~1", "/").replace("~0", "~") } else { t.to_owned() }).collect();
    let mut out = String::with_capacity(path.len());
    let mut cur = input;
    // The objects whose `anyOf`/`oneOf` the path went into: (the object, the path's length
    // there, the index of the first token inside the branch).
    let mut owners: Vec<(&Value, usize, usize)> = Vec::new();
    let mut i = 0;
    // References followed to reach the current token (a loop of them ends the walk).
    let mut hops = 0;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        let next = tokens.get(i + 1).map(String::as_str);
        // A reference inlined here: the path goes on in its target as if it stood in this place.
        if let Some(Value::String(r)) = cur.get("$ref").filter(|_| cur.get(t).is_none()) {
            let Some(target) = crate::schema::refs::lookup(input, r).filter(|_| hops < 32) else {
                push_rest(&mut out, &tokens[i..]);
                break;
            };
            cur = target;
            hops += 1;
            continue;
        }
        hops = 0;
        let o = cur.as_object();
        let has = |k: &str| o.is_some_and(|o| o.contains_key(k));
        let index = next.and_then(|n| n.parse::<usize>().ok());
        // An `anyOf` index past its end, beside a `oneOf`: the oneOf's entry.
        if let (true, Some(n)) = (t == "anyOf" && has("oneOf"), index) {
            let any = o.and_then(|o| o.get("anyOf")).and_then(Value::as_array).map_or(0, Vec::len);
            if n >= any {
                let one = &o.and_then(|o| o.get("oneOf")).and_then(Value::as_array);
                if let Some(b) = one.and_then(|bs| bs.get(n - any)) {
                    owners.push((cur, out.len(), i + 2));
                    crate::text::push_pointer_token(&mut out, "oneOf");
                    crate::text::push_pointer_token(&mut out, &(n - any).to_string());
                    cur = b;
                    i += 2;
                    continue;
                }
            }
        }
        let found = match cur {
            Value::Object(o) => o.get(t),
            Value::Array(a) if t == "0" || !t.starts_with('0') => t.parse::<usize>().ok().and_then(|n| a.get(n)),
            _ => None,
        };
        if let Some(v) = found {
            if matches!(t, "anyOf" | "oneOf" | "allOf") {
                owners.push((cur, out.len(), i + 2));
            }
            crate::text::push_pointer_token(&mut out, t);
            cur = v;
            i += 1;
            continue;
        }
        match (t, index) {
            // `oneOf` read as `anyOf`.
            ("anyOf", Some(n)) if has("oneOf") => {
                let Some(b) = o.and_then(|o| o.get("oneOf")).and_then(Value::as_array).and_then(|bs| bs.get(n)) else {
                    push_rest(&mut out, &tokens[i..]);
                    break;
                };
                owners.push((cur, out.len(), i + 2));
                crate::text::push_pointer_token(&mut out, "oneOf");
                crate::text::push_pointer_token(&mut out, &n.to_string());
                cur = b;
                i += 2;
            }
            // A type list split into branches: the node itself.
            ("anyOf", Some(_)) if o.and_then(|o| o.get("type")).is_some_and(Value::is_array) => i += 2,
            // Strict mode's `allOf` of the `anyOf` and the `oneOf`.
            ("allOf", Some(n)) if has("anyOf") && has("oneOf") && tokens.get(i + 2).map(String::as_str) == Some("anyOf") => {
                let key = if n == 0 { "anyOf" } else { "oneOf" };
                let Some(v) = o.and_then(|o| o.get(key)) else {
                    push_rest(&mut out, &tokens[i..]);
                    break;
                };
                owners.push((cur, out.len(), i + 4));
                crate::text::push_pointer_token(&mut out, key);
                cur = v;
                i += 3;
            }
            _ => {
                // Copied from the object into a branch: the object's own.
                let (name, from) = match (t, next) {
                    ("properties", Some(n)) => (n, i),
                    _ if i > 0 && tokens[i - 1] == "properties" => (t, i - 1),
                    _ => (t, i),
                };
                // Only right inside a branch: deeper, a node is the branch's own.
                let target = owners.last().filter(|&&(_, _, inside)| inside == from).and_then(|&(owner, at, _)| {
                    let v = match tokens[from].as_str() {
                        "properties" => owner.get("properties").and_then(|p| p.get(name)),
                        key => owner.get(key),
                    }?;
                    Some((v, at))
                });
                let Some((target, at)) = target else {
                    push_rest(&mut out, &tokens[i..]);
                    break;
                };
                out.truncate(at);
                if tokens[from] == "properties" {
                    crate::text::push_pointer_token(&mut out, "properties");
                    crate::text::push_pointer_token(&mut out, name);
                    i = from + 2;
                } else {
                    crate::text::push_pointer_token(&mut out, name);
                    i = from + 1;
                }
                owners.pop();
                cur = target;
            }
        }
    }
    (out != path).then_some(out)
}

fn push_rest(out: &mut String, tokens: &[String]) {
    for t in tokens {
        crate::text::push_pointer_token(out, t);
    }
}

impl Report {
    /// Total number of changes over all tools.
    pub fn change_count(&self) -> usize {
        self.tools.iter().map(|t| t.changes.len()).sum()
    }

    /// Total number of problems, including set-level ones.
    pub fn problem_count(&self) -> usize {
        self.problems.len() + self.tools.iter().map(|t| t.problems.len()).sum::<usize>()
    }

    /// The JSON form (see [`Report`]).
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.put("provider", string(&self.provider));
        o.put("tools", Value::Array(self.tools.iter().map(ToolReport::to_value).collect()));
        o.put("problems", diagnostics(&self.problems));
        Value::Object(o)
    }
}

impl ToolReport {
    /// The JSON form (see [`ToolReport`]).
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.put("tool", string(&self.tool));
        if let Some(s) = &self.server {
            o.put("server", string(s));
        }
        o.put("name", string(&self.name));
        if let Some(s) = self.strict {
            o.put("strict", Value::Bool(s));
        }
        o.put("changes", diagnostics(&self.changes));
        o.put("problems", diagnostics(&self.problems));
        Value::Object(o)
    }
}

impl Diagnostic {
    /// The JSON form (see [`Diagnostic`]).
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.put("path", string(&self.path));
        o.put("rule", string(self.rule));
        o.put("message", string(&self.message));
        Value::Object(o)
    }
}

fn diagnostics(list: &[Diagnostic]) -> Value {
    Value::Array(list.iter().map(Diagnostic::to_value).collect())
}

serialize_via_value!(Report, ToolReport, Diagnostic);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_form_is_exact() {
        let d = Diagnostic { path: "/properties/a".into(), rule: "gemini/strip-keyword", message: "removed \"x\"".into() };
        let t = ToolReport { tool: "t".into(), name: "n".into(), changes: vec![d.clone()], ..ToolReport::default() };
        let full = ToolReport { server: Some("s".into()), strict: Some(false), problems: vec![d.clone()], ..t.clone() };
        let r = Report { provider: "openai".into(), tools: vec![t, full], problems: vec![d] };
        let d_text = r#"{"path":"/properties/a","rule":"gemini/strip-keyword","message":"removed \"x\""}"#;
        let expected = format!(
            r#"{{"provider":"openai","tools":[{{"tool":"t","name":"n","changes":[{d_text}],"problems":[]}},{{"tool":"t","server":"s","name":"n","strict":false,"changes":[{d_text}],"problems":[{d_text}]}}],"problems":[{d_text}]}}"#
        );
        assert_eq!(serde_json::to_string(&r.to_value()).unwrap(), expected);
        assert_eq!(serde_json::to_string(&r).unwrap(), expected, "Serialize gives the same JSON");
        assert_eq!(serde_json::to_string(&r.tools[1]).unwrap(), serde_json::to_string(&r.tools[1].to_value()).unwrap());
    }
}

#[cfg(test)]
mod path_tests {
    use super::*;
    use serde_json::json;

    /// Every diagnostic path is a pointer into the input (probe F5): a `oneOf` read as `anyOf`,
    /// an `anyOf` and a `oneOf` side by side (strict's `allOf`), a type list split into branches,
    /// and an object's property copied into its branches (reported once), for Gemini and
    /// Anthropic strict.
    #[test]
    fn diagnostic_paths_point_into_the_input() {
        use crate::convert::{convert, ConvertOptions};
        use crate::providers::Provider;
        let tools = json!([{"name": "t", "inputSchema": {"type": "object", "properties": {
            "op": {"oneOf": [
                {"type": "object", "properties": {"kind": {"type": "string", "const": "a"}, "n": {"type": "integer", "minimum": 0}}, "required": ["kind"]},
                {"type": "object", "properties": {"kind": {"type": "string", "const": "b"}}, "required": ["kind"]}]},
            "v": {"type": ["string", "array"]},
            "w": {"anyOf": [{"type": "string", "format": "email"}, {"type": "string", "format": "uri"}, {"type": "integer", "format": "int32"}],
                  "oneOf": [{"type": "string", "format": "hostname"}, {"type": "integer"}]}},
            "required": ["op", "v", "w"]}},
            {"name": "t2", "inputSchema": {"type": "object", "properties": {
            "d": {"type": "object", "properties": {"shared": {"type": ["string", "null"]}},
                  "anyOf": [{"required": ["x"], "properties": {"x": {"type": "string"}}}, {"required": ["y"], "properties": {"y": {"type": "string"}}}]}}}}]);
        for (provider, strict) in [(Provider::Gemini, false), (Provider::Vertex, false), (Provider::Anthropic, true), (Provider::OpenAi, true)] {
            let mut opts = ConvertOptions::default();
            opts.schema.strict = strict;
            let out = convert(tools.clone(), provider, &opts).unwrap();
            for (i, tr) in out.report.tools.iter().enumerate() {
                let input = &tools[i]["inputSchema"];
                for d in tr.changes.iter().chain(&tr.problems) {
                    assert!(d.path.is_empty() || input.pointer(&d.path).is_some(), "{provider:?}: {} {} {}", d.path, d.rule, d.message);
                }
                for list in [&tr.changes, &tr.problems] {
                    for (j, d) in list.iter().enumerate() {
                        assert!(!list[..j].contains(d), "{provider:?}: reported twice: {d:?}");
                    }
                }
            }
            if !strict {
                let t2 = &out.report.tools[1].changes;
                assert_eq!(t2.iter().filter(|d| d.rule == "gemini/nullable").map(|d| d.path.as_str()).collect::<Vec<_>>(), ["/properties/d/properties/shared"], "{provider:?}");
            }
        }
    }

    /// A union nested in a union through a reference, spliced into it for Gemini: a change
    /// inside the nested union's second branch points into that branch, as the input has it
    /// (the reference's place, then its target), not to the outer union's second branch.
    #[test]
    fn paths_into_a_union_behind_a_reference_stay_in_it() {
        use crate::convert::{convert, ConvertOptions};
        use crate::providers::Provider;
        let input = json!({"type": "object", "properties": {"p": {"anyOf": [{"$ref": "#/$defs/U"}, {"type": "string"}]}, "q": {"$ref": "#/$defs/O"}},
            "$defs": {"U": {"anyOf": [{"type": "object", "properties": {"a": {"const": "x"}}}, {"type": "object", "properties": {"b": {"const": "y"}}}]},
                      "O": {"oneOf": [{"type": "string", "format": "email"}, {"type": "integer"}]}}});
        let out = convert(json!([{"name": "t", "inputSchema": input}]), Provider::Gemini, &ConvertOptions::default()).unwrap();
        let said: Vec<(&str, &str)> = out.report.tools[0].changes.iter().map(|d| (d.path.as_str(), d.rule)).collect();
        for expected in [
            ("/properties/p/anyOf/0/anyOf/0/properties/a", "gemini/const"),
            ("/properties/p/anyOf/0/anyOf/1/properties/b", "gemini/const"),
            ("/properties/q/oneOf/0", "gemini/strip-keyword"),
        ] {
            assert!(said.contains(&expected), "{expected:?} not in {said:?}");
        }
        assert!(!said.iter().any(|(p, _)| p.starts_with("/properties/p/anyOf/1/")), "{said:?}");
        // A reference that leads round to itself ends the walk: the rest as it was.
        let looped = json!({"properties": {"p": {"$ref": "#/properties/p"}}});
        assert_eq!(input_path(&looped, "/properties/p/anyOf/1/type"), None);
    }

    #[test]
    fn paths_already_in_the_input_and_through_references_stay() {
        let input = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "o": {"oneOf": [{"type": "string"}]}}});
        for p in ["", "/properties/a", "/properties/a/properties/x", "/properties/o/oneOf/0", "/properties/zz/anyOf/0"] {
            assert_eq!(input_path(&input, p), None, "{p}");
        }
        assert_eq!(input_path(&input, "/properties/o/anyOf/0").as_deref(), Some("/properties/o/oneOf/0"));
    }
}
