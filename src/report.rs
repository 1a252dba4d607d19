//! What a conversion changed and what problems remain, per tool, returned as data.

use serde_json::{Map, Value};

use crate::model::{string, Put as _};

/// One change or problem, located by a JSON pointer into the tool's input schema.
///
/// JSON form: `{path, rule, message}`.
#[derive(Debug, Clone, PartialEq, Eq)]
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
