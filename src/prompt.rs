//! A tool-use system prompt for models without native tool calling (`toolsSystemPrompt`).
//!
//! Lists every tool by its provider name (the same names a conversion produces) with its
//! description and every parameter marked required or optional, then tells the model how to
//! call. English by default; Simplified Chinese (`zh-CN`) is built in; the whole template and
//! the call instructions can be replaced (`{{tools}}` is where the list goes).

use serde_json::Value;

use crate::model::Tool;
use crate::naming::{NameMap, NameRule, NamingOptions};
use crate::text::Owned as _;

/// Built-in wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Locale {
    intro: &'static str,
    instructions: &'static str,
    parameters: &'static str,
    no_parameters: &'static str,
    required: &'static str,
    optional: &'static str,
    any: &'static str,
}

/// English.
pub const EN: Locale = Locale {
    intro: "You can use the following tools.",
    instructions: "To call a tool, reply with exactly one block of this form and nothing else:\n<tool_call>\n{\"name\": \"TOOL_NAME\", \"arguments\": {...}}\n</tool_call>\nThe result will be sent back to you. Only call the tools listed here, with the parameters they define.",
    parameters: "Parameters",
    no_parameters: "No parameters.",
    required: "required",
    optional: "optional",
    any: "any",
};

/// Simplified Chinese.
pub const ZH_CN: Locale = Locale {
    intro: "你可以使用以下工具。",
    instructions: "调用工具时，请只回复一个如下格式的块，不要包含其他内容：\n<tool_call>\n{\"name\": \"工具名称\", \"arguments\": {...}}\n</tool_call>\n工具结果会发回给你。只能调用这里列出的工具，并使用它们定义的参数。",
    parameters: "参数",
    no_parameters: "无参数。",
    required: "必填",
    optional: "可选",
    any: "任意",
};

impl Locale {
    /// `"en"` or `"zh-CN"` (also `"zh"`, `"zh-Hans"`).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "en" | "en-US" | "en-GB" => Some(EN),
            "zh" | "zh-CN" | "zh-Hans" | "zh-cn" => Some(ZH_CN),
            _ => None,
        }
    }
}

/// Prompt options.
#[derive(Debug, Clone, Default)]
pub struct PromptOptions {
    /// The wording (English by default).
    pub locale: Option<Locale>,
    /// A whole template; `{{tools}}` is replaced by the tool list.
    pub template: Option<String>,
    /// Replaces the call instructions of the default template.
    pub instructions: Option<String>,
}

fn type_label(schema: &Value, any: &str) -> String {
    match schema.get("type") {
        Some(Value::String(t)) => match (t.as_str(), schema.get("items").and_then(|i| i.get("type")).and_then(Value::as_str)) {
            ("array", Some(it)) => format!("array of {it}"),
            _ => t.clone(),
        },
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" | "),
        _ if schema.get("enum").is_some() => "enum".owned(),
        _ => any.into(),
    }
}

/// Renders the prompt. Tool names follow the same rules and collision handling as a
/// conversion for `rule`.
pub fn tools_system_prompt(tools: &[Tool], servers: &[Option<&str>], naming: &NamingOptions, rule: NameRule, opts: &PromptOptions) -> String {
    let l = opts.locale.unwrap_or(EN);
    let pairs: Vec<(Option<&str>, &str)> = servers.iter().zip(tools).map(|(s, t)| (*s, t.name.as_str())).collect();
    let (map, _) = NameMap::build(&pairs, naming, rule);
    let mut list = String::new();
    for (tool, entry) in tools.iter().zip(map.entries()) {
        list.push_str(&format!("## {}\n", entry.name));
        let d = tool.description_text().trim();
        if !d.is_empty() {
            list.push_str(d);
            list.push('\n');
        }
        // The root as conversion sees it (an object-like root typed, a root `$ref` resolved, a
        // root that is not an object wrapped as `input`): the parameters the name map maps back.
        let (schema, _) = crate::schema::process_json_schema(&tool.input_schema, &mut crate::schema::Cx::new(crate::schema::Limits::default()));
        let props = schema.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        match props.filter(|p| !p.is_empty()) {
            None => list.push_str(&format!("{}\n", l.no_parameters)),
            Some(props) => {
                list.push_str(&format!("{}:\n", l.parameters));
                for (name, schema) in props {
                    let flag = if required.contains(&name.as_str()) { l.required } else { l.optional };
                    list.push_str(&format!("- {name} ({}, {flag})", type_label(schema, l.any)));
                    if let Some(Value::Array(e)) = schema.get("enum") {
                        let vals: Vec<String> = e.iter().map(crate::schema::short_json).collect();
                        list.push_str(&format!(" [{}]", vals.join(", ")));
                    }
                    if let Some(d) = schema.get("description").and_then(Value::as_str).map(str::trim).filter(|d| !d.is_empty()) {
                        list.push_str(&format!(": {d}"));
                    }
                    list.push('\n');
                }
            }
        }
        list.push('\n');
    }
    let list = list.trim_end().owned();
    match &opts.template {
        Some(t) => fill_placeholders(t, &list),
        None => format!("{}\n\n{}\n\n{}", l.intro, list, opts.instructions.as_deref().unwrap_or(l.instructions)),
    }
}

/// The spellings of a template's place for the tool list: `{{tools}}`, with spaces inside or not.
pub const TOOLS_PLACEHOLDERS: [&str; 4] = ["{{tools}}", "{{ tools }}", "{{ tools}}", "{{tools }}"];

/// `template` with each of its places for the tool list ([`TOOLS_PLACEHOLDERS`]) replaced by
/// `list`, in one pass over the template: the list (servers' descriptions) is never read again
/// for places of its own.
fn fill_placeholders(template: &str, list: &str) -> String {
    let mut out = String::with_capacity(template.len() + list.len());
    let mut rest = template;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        match TOOLS_PLACEHOLDERS.iter().find(|p| rest[at..].starts_with(*p)) {
            Some(p) => {
                out.push_str(list);
                rest = &rest[at + p.len()..];
            }
            None => {
                out.push_str("{{");
                rest = &rest[at + 2..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool() -> Tool {
        Tool::from_value(
            json!({"name":"search","description":"Find documents","inputSchema":{"type":"object","properties":{
                "q":{"type":"string","description":"Query"},"limit":{"type":"integer"},"mode":{"enum":["fast","deep"]}},"required":["q"]}}),
            0,
        )
        .unwrap()
    }

    /// The template is filled in one pass: a place for the list written inside a tool's
    /// description is text, not filled again (a description could make the prompt grow without
    /// end).
    #[test]
    fn a_templates_places_are_filled_once() {
        let t = Tool::from_value(json!({"name":"t","description":"write {{ tools }} here {{tools}}","inputSchema":{"type":"object"}}), 0).unwrap();
        let opts = PromptOptions { template: Some("A {{tools}} B {{ tools }} C {{x}} {{".owned()), ..PromptOptions::default() };
        let p = tools_system_prompt(&[t], &[None], &NamingOptions::default(), NameRule::Strict, &opts);
        let list = "## t\nwrite {{ tools }} here {{tools}}\nNo parameters.";
        assert_eq!(p, format!("A {list} B {list} C {{{{x}}}} {{{{"));
    }

    #[test]
    fn english_lists_parameters_as_required_or_optional() {
        let p = tools_system_prompt(&[tool()], &[Some("docs")], &NamingOptions::default(), NameRule::Strict, &PromptOptions::default());
        assert!(p.starts_with("You can use the following tools."));
        assert!(p.contains("## mcp__docs__search\nFind documents\nParameters:\n- q (string, required): Query\n- limit (integer, optional)\n- mode (enum, optional) [\"fast\", \"deep\"]"));
        assert!(p.contains("<tool_call>"));
    }

    #[test]
    fn parameters_are_those_of_the_root_as_converted() {
        let tools: Vec<Tool> = [
            json!({"name":"s","inputSchema":{"type":"string","description":"Text"}}),
            json!({"name":"r","inputSchema":{"$ref":"#/$defs/A","$defs":{"A":{"properties":{"x":{"type":"integer"}},"required":["x"]}}}}),
        ]
        .into_iter()
        .enumerate()
        .map(|(i, v)| Tool::from_value(v, i).unwrap())
        .collect();
        let p = tools_system_prompt(&tools, &[None, None], &NamingOptions::default(), NameRule::Strict, &PromptOptions::default());
        assert!(p.contains("## s
Parameters:
- input (string, required): Text
"), "{p}");
        assert!(p.contains("## r
Parameters:
- x (integer, required)"), "{p}");
    }

    #[test]
    fn chinese_and_custom_templates() {
        let zh = PromptOptions { locale: Locale::parse("zh-CN"), ..PromptOptions::default() };
        let p = tools_system_prompt(&[tool()], &[None], &NamingOptions::default(), NameRule::Strict, &zh);
        assert!(p.contains("- q (string, 必填): Query"));
        assert!(p.contains("参数:"));
        let custom = PromptOptions { template: Some("TOOLS:\n{{tools}}\nEND".into()), ..PromptOptions::default() };
        let p = tools_system_prompt(&[tool()], &[None], &NamingOptions::default(), NameRule::Strict, &custom);
        assert!(p.starts_with("TOOLS:\n## search\n") && p.ends_with("END"));
    }
}
