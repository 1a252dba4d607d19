//! Recursions of several definitions (a union of kinds, each holding steps of every kind) are
//! unrolled as one recursion: `maxRefUnroll` counts the expansions on a path of any reference
//! of the recursion, and unrolling stops within a budget relative to the input (four times its
//! nodes, at least 500). Before, each kind was unrolled twice in turn and only the size
//! budget's floor of 2,000 nodes stopped it: Gemini's parameters were 40-80 times the input,
//! whatever `maxRefUnroll` said, with a `refs/recursion-cut` change at each of hundreds of
//! places.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Map, Value};
use toolwire::convert::{check, convert, convert_json, ConvertOptions};
use toolwire::providers::{GeminiMode, Provider};

/// `steps: list[Union[Task, Container0, ...]]` as Pydantic writes it, `kinds` kinds.
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

fn options(unroll: usize, mode: GeminiMode) -> ConvertOptions {
    let mut opts = ConvertOptions::default();
    opts.schema.limits.max_ref_unroll = unroll;
    opts.schema.gemini_mode = mode;
    opts
}

#[test]
fn a_recursive_union_stays_within_a_few_times_its_size() {
    for kinds in [4, 6, 8, 10] {
        let schema = workflow(kinds);
        let input = schema.to_string().len();
        let tools = json!([{"name": "w", "inputSchema": schema}]);
        for (unroll, most) in [(2, 14), (1, 4)] {
            for mode in [GeminiMode::Parameters, GeminiMode::JsonSchema] {
                for provider in [Provider::Gemini, Provider::Vertex] {
                    let opts = options(unroll, mode);
                    let conv = convert(tools.clone(), provider, &opts).unwrap();
                    let text = conv.tools.to_string();
                    assert_eq!(convert_json(&tools.to_string(), provider, &opts).unwrap(), text, "{provider:?} {mode:?}: both paths");
                    assert!(text.len() <= most * input, "{provider:?} {mode:?} {kinds} kinds, unroll {unroll}: {} bytes from {input}", text.len());
                    // One cut change per reference cut, saying at how many places.
                    let report = check(tools.clone(), provider, &opts).unwrap();
                    let cuts: Vec<_> = report.tools[0].changes.iter().filter(|d| d.rule == "refs/recursion-cut").collect();
                    assert!(!cuts.is_empty() && cuts.len() <= kinds, "{provider:?} {kinds}: {cuts:?}");
                    assert!(cuts.iter().any(|d| d.message.contains("places in all")), "{cuts:?}");
                }
            }
        }
    }
}

/// `A.b → B`, `B.a → A`: one recursion, unrolled twice on a path (A, then B inside it), then cut;
/// a self-recursive definition as before.
#[test]
fn mutual_recursion_unrolls_as_one() {
    let schema = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/A"}, "n": {"$ref": "#/$defs/N"}}, "$defs": {
        "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}, "s": {"type": "string"}}},
        "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "t": {"type": "string"}}},
        "N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}});
    let tools = json!([{"name": "t", "inputSchema": schema}]);
    let conv = convert(tools.clone(), Provider::Gemini, &ConvertOptions::default()).unwrap();
    let p = &conv.tools[0]["functionDeclarations"][0]["parameters"]["properties"];
    assert!(p["x"]["properties"]["b"]["properties"]["t"].is_object(), "{p}");
    let cut = &p["x"]["properties"]["b"]["properties"]["a"];
    assert!(cut["description"].as_str().unwrap().contains("Recursive structure: A"), "{cut}");
    assert!(p["n"]["properties"]["next"]["properties"]["next"]["description"].as_str().unwrap().contains("Recursive structure: N"), "{p}");
    assert_eq!(convert_json(&tools.to_string(), Provider::Gemini, &ConvertOptions::default()).unwrap(), conv.tools.to_string());
}
