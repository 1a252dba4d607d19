//! Recursive `$ref`s whose unrolling would nest past the depth limit (a Pydantic-style
//! recursive union of many kinds, a ring of definitions): the expansion cuts the reference it
//! would unroll once more, as it cuts a recursion, so the tool converts for every target and
//! the tools beside it are unaffected.
#![cfg(not(target_arch = "wasm32"))]

mod validator;

use serde_json::{json, Map, Value};
use toolwire::convert::{check, convert, convert_json, Conversion, ConvertOptions};
use toolwire::providers::{GeminiMode, Provider};
use validator::{validate, Target};

fn targets() -> Vec<(Provider, bool, GeminiMode, Target)> {
    vec![
        (Provider::OpenAi, false, GeminiMode::Parameters, Target::OpenAi),
        (Provider::OpenAi, true, GeminiMode::Parameters, Target::OpenAiStrict),
        (Provider::OpenAiResponses, true, GeminiMode::Parameters, Target::OpenAiResponsesStrict),
        (Provider::Anthropic, false, GeminiMode::Parameters, Target::Anthropic),
        (Provider::Anthropic, true, GeminiMode::Parameters, Target::AnthropicStrict),
        (Provider::Gemini, false, GeminiMode::Parameters, Target::GeminiParameters),
        (Provider::Gemini, false, GeminiMode::JsonSchema, Target::GeminiJsonSchema),
        (Provider::Vertex, false, GeminiMode::Parameters, Target::Vertex),
        (Provider::Bedrock, false, GeminiMode::Parameters, Target::Bedrock),
        (Provider::Bedrock, true, GeminiMode::Parameters, Target::BedrockStrict),
    ]
}

fn options(strict: bool, mode: GeminiMode) -> ConvertOptions {
    let mut opts = ConvertOptions::default();
    opts.schema.strict = strict;
    opts.schema.gemini_mode = mode;
    opts
}

fn tool(name: &str, schema: Value) -> Value {
    json!({"name": name, "description": "d", "inputSchema": schema})
}

/// A workflow whose container steps hold `steps: list[Union[Task, Container0, ...]]`, as
/// Pydantic writes a recursive union (an inline `anyOf` of `$ref`s at each use): `kinds` kinds.
fn workflow(kinds: usize) -> Value {
    let names: Vec<String> = std::iter::once("Task".to_owned()).chain((0..kinds - 1).map(|i| format!("Container{i}"))).collect();
    let steps = json!({"type": "array", "items": {"anyOf": names.iter().map(|k| json!({"$ref": format!("#/$defs/{k}")})).collect::<Vec<_>>()}});
    let mut defs = Map::new();
    defs.insert("Task".into(), json!({"type": "object", "properties": {"type": {"const": "task"}, "action": {"type": "string"}}, "required": ["type", "action"]}));
    for i in 0..kinds - 1 {
        defs.insert(format!("Container{i}"), json!({"type": "object", "properties": {"type": {"const": format!("c{i}")}, "steps": steps}, "required": ["type", "steps"]}));
    }
    json!({"type": "object", "properties": {"steps": steps}, "required": ["steps"], "$defs": defs})
}

/// `N0.next → N1 … → N{n-1}.next → N0`.
fn ring(n: usize) -> Value {
    let defs: Map<String, Value> = (0..n)
        .map(|i| (format!("N{i}"), json!({"type": "object", "properties": {"v": {"type": "string"}, "next": {"$ref": format!("#/$defs/N{}", (i + 1) % n)}}})))
        .collect();
    json!({"type": "object", "properties": {"head": {"$ref": "#/$defs/N0"}}, "$defs": defs})
}

fn other() -> Value {
    tool("get_status", json!({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}))
}

/// `[get_status, tool]` converted for every target: never an error, each output accepted by
/// the validator, the same through the JSON API as through the general one, and
/// `get_status` as it comes out alone.
fn every_target(t: &Value) -> Vec<(Provider, bool, GeminiMode, Conversion)> {
    let list = json!([other(), t]);
    targets()
        .into_iter()
        .map(|(provider, strict, mode, target)| {
            let opts = options(strict, mode);
            let conv = convert(list.clone(), provider, &opts).unwrap_or_else(|e| panic!("{target:?}: {e}"));
            let v = validate(target, &conv.tools);
            assert!(v.is_empty(), "{target:?}: {v:?}");
            assert_eq!(convert_json(&list.to_string(), provider, &opts).unwrap(), conv.tools.to_string(), "{target:?}: both paths");
            let alone = convert(json!([other()]), provider, &opts).unwrap();
            let first = |c: &Conversion| match provider {
                Provider::Gemini | Provider::Vertex => c.tools[0]["functionDeclarations"][0].clone(),
                _ => c.tools[0].clone(),
            };
            assert_eq!(first(&conv), first(&alone), "{target:?}: the other tool");
            (provider, strict, mode, conv)
        })
        .collect()
}

/// The 10-kind workflow (4.4 KB): Gemini and Vertex unrolled it depth-first past 64 levels and
/// the whole list failed with LIMIT_EXCEEDED. It converts for every target; and where the
/// unrolling allowed would still pass the limit (`maxRefUnroll` 20), the reference that would
/// pass it is cut to the recursion's open object, and the report says why.
#[test]
fn a_recursive_union_is_cut_before_the_depth_limit() {
    for kinds in [10, 12] {
        let t = tool("run_workflow", workflow(kinds));
        every_target(&t);
        let list = json!([other(), t]);
        for mode in [GeminiMode::Parameters, GeminiMode::JsonSchema] {
            for provider in [Provider::Gemini, Provider::Vertex] {
                let mut opts = options(false, mode);
                opts.schema.limits.max_ref_unroll = 20;
                let conv = convert(list.clone(), provider, &opts).unwrap_or_else(|e| panic!("{provider:?} {mode:?} {kinds}: {e}"));
                assert_eq!(convert_json(&list.to_string(), provider, &opts).unwrap(), conv.tools.to_string(), "{provider:?}: both paths");
                assert!(conv.tools.to_string().contains("Recursive structure: Container"), "{provider:?} {mode:?} {kinds}");
                let report = check(list.clone(), provider, &opts).unwrap();
                let changes = &report.tools[1].changes;
                assert!(
                    changes.iter().any(|d| d.rule == "refs/recursion-cut" && d.message.contains("depth limit of 64 levels")),
                    "{provider:?} {mode:?} {kinds}: {changes:?}"
                );
            }
        }
    }
}

/// A smaller `maxDepth` is met the same way: cut where it would be passed, never an error.
#[test]
fn a_smaller_depth_limit_cuts_sooner() {
    let list = json!([other(), tool("run_workflow", workflow(4))]);
    for depth in [12, 16, 20, 32] {
        let mut opts = options(false, GeminiMode::Parameters);
        opts.schema.limits.max_depth = depth;
        for provider in [Provider::Gemini, Provider::Vertex] {
            let conv = convert(list.clone(), provider, &opts).unwrap_or_else(|e| panic!("{provider:?} {depth}: {e}"));
            assert_eq!(convert_json(&list.to_string(), provider, &opts).unwrap(), conv.tools.to_string(), "{provider:?} {depth}: both paths");
        }
    }
}

/// A ring of 16 definitions: unrolled where references are inlined (cut before 64 levels), and
/// kept as `$defs` by OpenAI's strict mode, which can say the recursion; the other strict
/// modes send it without strict, saying why.
#[test]
fn a_ring_of_definitions_converts_everywhere() {
    let t = tool("ring", ring(16));
    for (provider, strict, _, conv) in every_target(&t) {
        let out = match provider {
            Provider::Gemini | Provider::Vertex => conv.tools[0]["functionDeclarations"][1].to_string(),
            _ => conv.tools[1].to_string(),
        };
        match (provider, strict) {
            (Provider::OpenAi | Provider::OpenAiResponses, true) => {
                assert_eq!(conv.report.tools[1].strict, Some(true), "{provider:?}: {out}");
                assert!(out.contains("$defs"), "{provider:?}: {out}");
            }
            (_, true) => {
                assert_eq!(conv.report.tools[1].strict, Some(false), "{provider:?}: {out}");
                assert!(conv.report.tools[1].problems.iter().any(|d| d.rule.ends_with("/strict-fallback")), "{provider:?}");
            }
            (Provider::Gemini | Provider::Vertex, _) => assert!(out.contains("Recursive structure: N"), "{provider:?}: {out}"),
            _ => {}
        }
    }
}
