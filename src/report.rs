//! What a conversion changed and what problems remain, per tool, returned as data.

use serde::Serialize;

/// One change or problem, located by a JSON pointer into the tool's input schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// JSON pointer into the input schema (`""` is the root, `/properties/a` a property).
    pub path: String,
    /// Stable rule identifier, e.g. `gemini/strip-keyword`.
    pub rule: &'static str,
    /// What was done, or what is wrong, in words.
    pub message: String,
}

/// The report for one tool.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolReport {
    /// The tool's MCP name.
    pub tool: String,
    /// The server it came from, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The name the provider sees.
    pub name: String,
    /// Whether the tool was emitted in strict mode (for providers that have one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
    /// Every change made to the schema or the definition.
    pub changes: Vec<Diagnostic>,
    /// Problems that remain: the provider may reject or misuse the tool because of them.
    pub problems: Vec<Diagnostic>,
}

/// The report for a whole conversion.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
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
}
