//! Chains of `$ref` aliases (a definition that is nothing but a reference to the next one) and
//! tools whose strict form meets a limit: an alias chain is followed at one level however long
//! it is, one that goes round is an open object (or, for a strict mode, the tool sent without
//! strict), and a tool whose strict form is past `limits` is sent without strict, said in the
//! report, while the other tools of the list convert as they do alone.
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

/// `tools` converted for every target: never an error, each output accepted by the validator
/// and the same through the JSON API (the pass-through path) as through the general one.
fn every_target(tools: &Value) -> Vec<(Provider, bool, GeminiMode, Conversion)> {
    targets()
        .into_iter()
        .map(|(provider, strict, mode, target)| {
            let opts = options(strict, mode);
            let conv = convert(tools.clone(), provider, &opts).unwrap_or_else(|e| panic!("{target:?}: {e}"));
            let v = validate(target, &conv.tools);
            assert!(v.is_empty(), "{target:?}: {v:?}\noutput: {}", conv.tools);
            let text = convert_json(&tools.to_string(), provider, &opts).unwrap();
            assert_eq!(text, conv.tools.to_string(), "{target:?}: both paths");
            (provider, strict, mode, conv)
        })
        .collect()
}

/// The one tool's parameters in a conversion, and whether it was sent strict (for the
/// providers with a strict mode).
fn schema_of(provider: Provider, mode: GeminiMode, conv: &Conversion) -> (Value, Option<bool>) {
    let t = &conv.tools;
    match provider {
        Provider::OpenAi | Provider::Ollama => (t[0]["function"]["parameters"].clone(), t[0]["function"]["strict"].as_bool()),
        Provider::OpenAiResponses => (t[0]["parameters"].clone(), t[0]["strict"].as_bool()),
        Provider::Anthropic => (t[0]["input_schema"].clone(), t[0]["strict"].as_bool()),
        Provider::Bedrock => (t[0]["toolSpec"]["inputSchema"]["json"].clone(), t[0]["toolSpec"]["strict"].as_bool()),
        Provider::Gemini | Provider::Vertex => {
            let key = if mode == GeminiMode::JsonSchema { "parametersJsonSchema" } else { "parameters" };
            (t[0]["functionDeclarations"][0][key].clone(), None)
        }
    }
}

/// Whether the conversion inlines references (a strict mode, Gemini, Vertex) or sends them as
/// they are.
fn inlines(provider: Provider, strict: bool) -> bool {
    strict || matches!(provider, Provider::Gemini | Provider::Vertex)
}

/// `a0 → a1 → … → a{hops}`, the last a real object schema; `x` refers to `a0`. With
/// `annotated`, each alias carries a description and the end one of its own.
fn chain(hops: usize, annotated: bool) -> Value {
    let mut defs = Map::new();
    for i in 0..hops {
        let mut alias = json!({"$ref": format!("#/$defs/a{}", i + 1)});
        if annotated && i == 1 {
            alias["description"] = json!("the second hop");
        }
        defs.insert(format!("a{i}"), alias);
    }
    let mut end = json!({"type": "object", "properties": {"q": {"type": "string", "minLength": 1}}, "required": ["q"]});
    if annotated {
        end["description"] = json!("the query");
    }
    defs.insert(format!("a{hops}"), end);
    json!({"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/a0", "description": "what to look for"}}, "required": ["x"]})
}

fn tool(name: &str, schema: Value) -> Value {
    json!({"name": name, "description": "d", "inputSchema": schema})
}

/// A chain of 1, 63 or 200 aliases converts for every target: where references are inlined,
/// `x` is the object at the end of the chain, one level down, with the description beside
/// the first reference; the strict modes stay strict. (Before: 63 hops nested 64 levels and
/// the whole conversion failed with LIMIT_EXCEEDED.)
#[test]
fn alias_chains_are_followed_at_one_level() {
    for hops in [1, 63, 200] {
        let tools = json!([tool("t", chain(hops, false))]);
        for (provider, strict, mode, conv) in every_target(&tools) {
            let (schema, sent_strict) = schema_of(provider, mode, &conv);
            if !matches!(provider, Provider::Gemini | Provider::Vertex) {
                assert_eq!(sent_strict.unwrap_or(false), strict, "{provider:?} {hops}: {}", conv.tools);
            }
            if !inlines(provider, strict) {
                continue;
            }
            let x = &schema["properties"]["x"];
            assert!(x["properties"]["q"].is_object(), "{provider:?} {strict} {hops}: {x}");
            assert!(x["description"].as_str().unwrap().contains("what to look for"), "{provider:?} {hops}: {x}");
            assert!(!schema.to_string().contains("$ref"), "{provider:?} {hops}: {schema}");
        }
    }
}

/// The annotations beside the aliases combine with the end schema as any `$ref`'s siblings
/// do: the place's description first, then each hop's, then the definition's.
#[test]
fn annotations_along_a_chain_are_kept() {
    for hops in [2, 63, 200] {
        let tools = json!([tool("t", chain(hops, true))]);
        for (provider, strict, mode, conv) in every_target(&tools) {
            if !inlines(provider, strict) {
                continue;
            }
            let (schema, _) = schema_of(provider, mode, &conv);
            let description = schema["properties"]["x"]["description"].as_str().unwrap_or_default().to_owned();
            let at = |s: &str| description.find(s).unwrap_or_else(|| panic!("{provider:?} {hops}: {s:?} not in {description:?}"));
            assert!(at("what to look for") < at("the second hop") && at("the second hop") < at("the query"), "{provider:?}: {description}");
        }
    }
}

/// Aliases that go round without reaching a schema (`a0 → a1 → … → a0`, of 1, 2 and 40 hops):
/// no hang, no error. A strict mode sends the tool without strict and says why; where
/// references are inlined, `x` is an open object that says so, and the report names the loop.
#[test]
fn alias_loops_are_an_open_object_or_not_strict() {
    for hops in [1, 2, 40] {
        let defs: Map<String, Value> = (0..hops).map(|i| (format!("a{i}"), json!({"$ref": format!("#/$defs/a{}", (i + 1) % hops)}))).collect();
        let schema = json!({"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/a0"}, "y": {"type": "string"}}});
        let tools = json!([tool("t", schema)]);
        for (provider, strict, mode, conv) in every_target(&tools) {
            let (out, sent_strict) = schema_of(provider, mode, &conv);
            let report = check(tools.clone(), provider, &options(strict, mode)).unwrap();
            let problems = &report.tools[0].problems;
            if strict {
                assert_ne!(sent_strict, Some(true), "{provider:?} {hops}: {}", conv.tools);
                assert!(problems.iter().any(|d| d.rule.ends_with("/strict-fallback")), "{provider:?} {hops}: {problems:?}");
                assert!(problems.iter().any(|d| d.message.contains("never reach a schema")), "{provider:?} {hops}: {problems:?}");
            } else if inlines(provider, strict) {
                let x = &out["properties"]["x"];
                assert!(x["description"].as_str().unwrap().contains("No schema"), "{provider:?} {hops}: {x}");
                assert!(problems.iter().any(|d| d.rule == "refs/unresolvable" && d.path == "/properties/x"), "{provider:?} {hops}: {problems:?}");
            }
            assert_eq!(out["properties"]["y"]["type"].as_str().map(str::to_lowercase).as_deref(), Some("string"), "{provider:?}: {out}");
        }
    }
}

/// Two chains meeting in one definition, and two places reaching it through each: no
/// recursion (nothing is cut), every place the same object.
#[test]
fn diamonds_are_no_recursion() {
    let schema = json!({"type": "object",
        "$defs": {"l": {"$ref": "#/$defs/m", "description": "left"}, "r": {"$ref": "#/$defs/m"}, "m": {"$ref": "#/$defs/d"},
                  "d": {"type": "object", "properties": {"leaf": {"$ref": "#/$defs/leaf"}, "again": {"$ref": "#/$defs/leaf"}}, "required": ["leaf"]},
                  "leaf": {"type": "integer", "minimum": 0}},
        "properties": {"a": {"$ref": "#/$defs/l"}, "b": {"$ref": "#/$defs/r"}, "c": {"type": "array", "items": {"$ref": "#/$defs/r"}},
                       "e": {"anyOf": [{"$ref": "#/$defs/l"}, {"$ref": "#/$defs/r"}]}}});
    let tools = json!([tool("t", schema)]);
    for (provider, strict, mode, conv) in every_target(&tools) {
        let report = check(tools.clone(), provider, &options(strict, mode)).unwrap();
        assert!(report.tools[0].changes.iter().all(|d| !d.rule.starts_with("refs/")), "{provider:?}: {:?}", report.tools[0].changes);
        if !inlines(provider, strict) {
            continue;
        }
        let (out, sent_strict) = schema_of(provider, mode, &conv);
        assert_ne!(sent_strict, Some(false), "{provider:?}: {}", conv.tools);
        let p = &out["properties"];
        for place in [&p["a"], &p["b"], &p["c"]["items"]] {
            assert!(place["properties"]["leaf"].is_object() && place["properties"]["again"].is_object(), "{provider:?}: {place}");
        }
        assert_eq!(p["a"]["description"], "left", "{provider:?}");
        let mut b = p["b"].clone();
        b.as_object_mut().unwrap().remove("description");
        assert_eq!(b["properties"], p["a"]["properties"], "{provider:?}");
    }
}

/// One tool of a list cannot be strict within the limits (its references, inlined, nest past
/// 64 levels): it is sent without strict, the report says why, and the tools around it come
/// out as they do alone. So does a 200-hop alias chain beside them, strict.
#[test]
fn one_tool_past_a_limit_falls_back_alone() {
    // 40 definitions, each an object whose property refers to the next: 80 levels inlined.
    let mut defs = Map::new();
    for i in 0..40 {
        defs.insert(format!("L{i}"), json!({"type": "object", "properties": {"next": {"$ref": format!("#/$defs/L{}", i + 1)}}, "required": ["next"]}));
    }
    defs.insert("L40".into(), json!({"type": "string"}));
    let deep = json!({"type": "object", "$defs": defs, "properties": {"root": {"$ref": "#/$defs/L0"}}, "required": ["root"]});
    let first = tool("first", json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]}));
    let last = tool("last", json!({"type": "object", "properties": {"c": {"$ref": "#/$defs/C"}}, "$defs": {"C": {"type": "boolean"}}}));
    let list = json!([first, tool("deep", deep), tool("chain", chain(200, true)), last]);
    for (provider, strict) in [(Provider::OpenAi, true), (Provider::OpenAiResponses, true), (Provider::Anthropic, true), (Provider::Bedrock, true)] {
        let opts = options(strict, GeminiMode::Parameters);
        let conv = convert(list.clone(), provider, &opts).unwrap_or_else(|e| panic!("{provider:?}: {e}"));
        assert_eq!(convert_json(&list.to_string(), provider, &opts).unwrap(), conv.tools.to_string(), "{provider:?}: both paths");
        let target = match provider {
            Provider::OpenAi => Target::OpenAiStrict,
            Provider::OpenAiResponses => Target::OpenAiResponsesStrict,
            Provider::Anthropic => Target::AnthropicStrict,
            _ => Target::BedrockStrict,
        };
        assert!(validate(target, &conv.tools).is_empty(), "{provider:?}: {:?}", validate(target, &conv.tools));
        let report = &conv.report.tools;
        assert_eq!(report.iter().map(|t| t.strict).collect::<Vec<_>>(), [Some(true), Some(false), Some(true), Some(true)], "{provider:?}");
        let why = report[1].problems.iter().find(|d| d.rule.ends_with("/strict-fallback")).expect("said why");
        assert!(why.message.contains("within the limits") && why.message.contains("64 levels"), "{provider:?}: {}", why.message);
        // The others as alone, with their reports.
        for (i, alone) in [(0, &list[0]), (2, &list[2]), (3, &list[3])] {
            let one = convert(json!([alone]), provider, &opts).unwrap();
            assert_eq!(conv.tools[i], one.tools[0], "{provider:?}: tool {i}");
            assert!(conv.report.tools[i] == one.report.tools[0], "{provider:?}: tool {i}");
        }
        // Without strict, nothing to fall back from.
        let plain = convert(list.clone(), provider, &options(false, GeminiMode::Parameters)).unwrap();
        assert!(plain.report.tools.iter().all(|t| t.problems.iter().all(|d| !d.rule.ends_with("/strict-fallback"))), "{provider:?}");
    }
}
