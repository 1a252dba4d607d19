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

/// A recursive definition whose only references strict mode removes (under the `properties` of
/// a string node, which it drops) is not sent under `$defs`, nor counted or reported, and the
/// report claims no reference kept; a definition the strict schema still refers to is sent.
/// Converted again, the output is the same. Anthropic's and Bedrock's strict modes give up on
/// the recursion (Claude's keeps that `properties`).
#[test]
fn definitions_strict_mode_leaves_unreferenced_are_not_sent() {
    let node = json!({"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}});
    let tree = json!({"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}, "name": {"type": "string"}}, "required": ["kids", "name"]});
    let lone = json!({"type": "string", "properties": {"r": {"$ref": "#/$defs/Node"}}});
    let only = json!({"type": "object", "properties": {"s": lone}, "$defs": {"Node": node}});
    let mixed = json!({"type": "object", "properties": {"s": lone, "t": {"$ref": "#/$defs/Tree"}}, "required": ["t"], "$defs": {"Node": node, "Tree": tree}});
    for (schema, kept) in [(only, &[][..]), (mixed, &["Tree"][..])] {
        let tools = json!([{"name": "t", "inputSchema": schema}]);
        for (provider, target) in [(Provider::OpenAi, Target::OpenAiStrict), (Provider::OpenAiResponses, Target::OpenAiResponsesStrict)] {
            let conv = convert_both(&tools, provider, target);
            let report = &conv.report.tools[0];
            assert_eq!(report.strict, Some(true), "{provider:?}: {:?}", report.problems);
            let params = match provider {
                Provider::OpenAi => &conv.tools[0]["function"]["parameters"],
                _ => &conv.tools[0]["parameters"],
            };
            let defs: Vec<&str> = params.get("$defs").and_then(Value::as_object).map(|d| d.keys().map(String::as_str).collect()).unwrap_or_default();
            assert_eq!(defs, kept, "{provider:?}: {params}");
            assert!(report.changes.iter().chain(&report.problems).all(|d| !d.path.starts_with("/$defs/Node")), "{provider:?}: {:?}", report.changes);
            let said = report.changes.iter().find(|d| d.rule == "openai/strict-defs");
            match kept {
                [] => assert!(said.is_none(), "{provider:?}: {said:?}"),
                _ => assert!(said.is_some_and(|d| d.message.ends_with("its references kept, to 1 definitions under the root's $defs")), "{provider:?}: {said:?}"),
            }
            let again = convert(json!([{"name": "t", "inputSchema": params}]), provider, &strict()).unwrap();
            let again = match provider {
                Provider::OpenAi => &again.tools[0]["function"]["parameters"],
                _ => &again.tools[0]["parameters"],
            };
            assert_eq!(again, params, "{provider:?}: converted again");
        }
        for (provider, target) in [(Provider::Anthropic, Target::AnthropicStrict), (Provider::Bedrock, Target::BedrockStrict)] {
            let conv = convert_both(&tools, provider, target);
            assert_eq!(conv.report.tools[0].strict, Some(false), "{provider:?}");
        }
    }
}
