//! Strict modes on schemas whose shared definitions would grow many times over when inlined
//! (a "bracket": each round refers to the next one twice): OpenAI's keeps the references under
//! `$defs`, as Structured Outputs takes them, where inlining would pass the expansion budget or
//! grow the schema past its factor; a strict mode that cannot keep them says that the budget is
//! why it falls back.
#![cfg(not(target_arch = "wasm32"))]

mod validator;

use serde_json::{json, Map, Value};
use toolwire::convert::{convert, convert_json, Conversion, ConvertOptions};
use toolwire::providers::Provider;
use validator::{validate, Target};

fn strict() -> ConvertOptions {
    let mut opts = ConvertOptions::default();
    opts.schema.strict = true;
    opts
}

/// `Round0 … Round{levels-1}`, each with `home` and `away` referring to the next; the last a
/// team name.
fn bracket(levels: usize) -> Value {
    let mut defs = Map::new();
    for i in 0..levels {
        let next = json!({"$ref": format!("#/$defs/Round{}", i + 1)});
        defs.insert(format!("Round{i}"), json!({"type": "object", "description": format!("round {i}"), "properties": {"home": next, "away": next, "day": {"type": "string"}}, "required": ["home", "away", "day"]}));
    }
    defs.insert(format!("Round{levels}"), json!({"type": "object", "properties": {"team": {"type": "string"}}, "required": ["team"]}));
    json!({"type": "object", "properties": {"final": {"$ref": "#/$defs/Round0"}}, "required": ["final"], "$defs": defs})
}

fn convert_both(tools: &Value, provider: Provider, target: Target) -> Conversion {
    let conv = convert(tools.clone(), provider, &strict()).unwrap();
    assert_eq!(convert_json(&tools.to_string(), provider, &strict()).unwrap(), conv.tools.to_string(), "{provider:?}: both paths");
    let v = validate(target, &conv.tools);
    assert!(v.is_empty(), "{provider:?}: {v:?}");
    conv
}

/// Eight levels (1.3 KB) inlined were 54 KB; sixteen passed the budget and the tool lost strict
/// mode, for "an object that declares no properties" (the cut's placeholder). Now both keep
/// their references, strict, about the input's size.
#[test]
fn openai_strict_keeps_shared_definitions_that_would_grow() {
    for levels in [8, 16] {
        let schema = bracket(levels);
        let tools = json!([{"name": "bracket", "inputSchema": schema}]);
        for (provider, target) in [(Provider::OpenAi, Target::OpenAiStrict), (Provider::OpenAiResponses, Target::OpenAiResponsesStrict)] {
            let conv = convert_both(&tools, provider, target);
            let report = &conv.report.tools[0];
            assert_eq!(report.strict, Some(true), "{provider:?} {levels}: {:?}", report.problems);
            let out = conv.tools.to_string();
            assert!(out.contains("\"$defs\""), "{provider:?} {levels}");
            assert!(out.len() < 3 * schema.to_string().len(), "{provider:?} {levels}: {} bytes", out.len());
            let why = report.changes.iter().find(|d| d.rule == "openai/strict-defs").expect("said");
            let expected = if levels == 8 { "times larger" } else { "expansion budget" };
            assert!(why.message.contains(expected), "{provider:?} {levels}: {}", why.message);
            assert!(report.changes.iter().all(|d| d.rule != "refs/expansion-cut"), "{provider:?} {levels}: {:?}", report.changes);
        }
    }
}

/// Anthropic's and Bedrock's strict modes inline references: past the budget they fall back,
/// saying the budget is why (not the open object a cut leaves).
#[test]
fn a_fallback_for_the_budget_says_so() {
    let tools = json!([{"name": "bracket", "inputSchema": bracket(16)}]);
    for (provider, target) in [(Provider::Anthropic, Target::AnthropicStrict), (Provider::Bedrock, Target::BedrockStrict)] {
        let conv = convert_both(&tools, provider, target);
        let report = &conv.report.tools[0];
        assert_eq!(report.strict, Some(false), "{provider:?}");
        let why = report.problems.iter().find(|d| d.rule.ends_with("/strict-fallback")).expect("said why");
        assert!(why.message.contains("expansion budget of 2000 schema nodes"), "{provider:?}: {}", why.message);
        assert!(!why.message.contains("declares no properties"), "{provider:?}: {}", why.message);
    }
}

/// A definition used a few times, small beside the schema, is still inlined.
#[test]
fn small_shared_definitions_are_still_inlined() {
    let tools = json!([{"name": "t", "inputSchema": bracket(3)}]);
    let conv = convert_both(&tools, Provider::OpenAi, Target::OpenAiStrict);
    assert_eq!(conv.report.tools[0].strict, Some(true));
    assert!(!conv.tools.to_string().contains("$defs"), "{}", conv.tools);
}
