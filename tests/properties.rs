//! Property tests on generated schemas: for every provider and mode, conversion never panics,
//! finishes in bounded time, and its output passes the independent provider validator (or the
//! conversion ends in a typed limit error). Plus the adversarial shapes: 1,000-deep nesting and
//! cyclic `$ref`s.
#![cfg(not(target_arch = "wasm32"))]

mod validator;

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use toolwire::convert::{check_json, convert, convert_json, convert_json_leaving_schemas, convert_json_named, ConvertOptions};
use toolwire::fast::passed_through;
use toolwire::providers::{GeminiMode, Provider};
use toolwire::ErrorCode;
use validator::{validate, Target};

const NAMES: &[&str] = &["a", "b", "type", "format", "$ref", "properties", "if", "items", "enum", "x-y", "__proto__", "$top", "dollar_top", "a b"];
const TYPES: &[&str] = &["string", "number", "integer", "boolean", "array", "object", "null"];
const FORMATS: &[&str] = &["uri", "date-time", "email", "uuid", "int32", "float", "enum"];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({})),
        Just(json!(true)),
        Just(json!(false)),
        prop::sample::select(TYPES).prop_map(|t| json!({ "type": t })),
        (prop::sample::select(TYPES), prop::sample::select(TYPES)).prop_map(|(a, b)| json!({ "type": [a, b] })),
        prop::collection::vec(prop_oneof![Just(json!(1)), Just(json!("s")), Just(json!(true)), Just(Value::Null), Just(json!(2.5))], 1..4)
            .prop_map(|e| json!({ "enum": e })),
        prop_oneof![Just(json!(1)), Just(json!("c")), Just(json!(null))].prop_map(|c| json!({ "const": c })),
        prop::sample::select(FORMATS).prop_map(|f| json!({"type": "string", "format": f, "description": "d"})),
        Just(json!({"$ref": "#/$defs/D"})),
        Just(json!({"$ref": "#"})),
        Just(json!({"$ref": "#/properties/a"})),
        Just(json!({"$ref": "#/$defs/Missing", "description": "dangling"})),
        Just(json!({"type": "integer", "minimum": 0, "exclusiveMaximum": 10, "multipleOf": 2, "default": 4})),
        Just(json!({"type": "object", "additionalProperties": {"type": "string"}})),
        Just(json!({"type": "array"})),
        Just(json!("not a schema")),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            (prop::collection::vec((prop::sample::select(NAMES), inner.clone()), 0..4), prop::collection::vec(prop::sample::select(NAMES), 0..3), any::<bool>())
                .prop_map(|(props, req, typed)| {
                    let mut o = Map::new();
                    if typed {
                        o.insert("type".into(), json!("object"));
                    }
                    o.insert("properties".into(), Value::Object(props.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()));
                    o.insert("required".into(), json!(req));
                    Value::Object(o)
                }),
            inner.clone().prop_map(|i| json!({"type": "array", "items": i})),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|b| json!({ "anyOf": b })),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|b| json!({ "oneOf": b, "description": "one" })),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|b| json!({ "allOf": b })),
            (inner.clone(), inner.clone()).prop_map(|(a, d)| json!({"type": "object", "properties": {"a": a}, "$defs": {"D": d}})),
            inner.clone().prop_map(|i| json!({"type": "object", "properties": {"n": i}, "additionalProperties": false, "$schema": "x"})),
        ]
    })
}

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

fn check(schema: &Value) -> Result<(), TestCaseError> {
    let tools = json!([{ "name": "t", "description": "generated", "inputSchema": schema }]);
    for (provider, strict, mode, target) in targets() {
        let mut opts = ConvertOptions::default();
        opts.schema.strict = strict;
        opts.schema.gemini_mode = mode;
        match convert(tools.clone(), provider, &opts) {
            Ok(conv) => {
                let v = validate(target, &conv.tools);
                prop_assert!(v.is_empty(), "{target:?}: {v:?}\ninput: {schema}\noutput: {}", conv.tools);
            }
            Err(e) => prop_assert_eq!(e.code, ErrorCode::LimitExceeded, "{:?}: unexpected error {}", target, e),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn generated_schemas_convert_to_valid_output(s in schema()) {
        check(&s)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    /// Whatever the keys, Claude (Anthropic, Bedrock) is given keys its pattern takes, one per
    /// property, the kept ones unchanged, and the argument plan (through its JSON form) gives
    /// every value back under the server's key; both paths write the same tools.
    #[test]
    fn claude_property_keys_are_legal_unique_and_map_back(
        keys in prop::collection::vec(prop_oneof!["[a-z$@ .\\[\\]_-]{0,6}", ".{0,70}", "[a-z]{60,70}[$ ]?", Just("dollar_top".to_owned()), Just("dollar_top_2".to_owned())], 0..8),
        provider in prop::sample::select(vec![Provider::Anthropic, Provider::Bedrock]),
        strict in any::<bool>(),
    ) {
        let mut props = Map::new();
        for k in &keys {
            props.insert(k.clone(), json!({"type": "integer"}));
        }
        let originals: Vec<String> = props.keys().cloned().collect();
        let tools = json!([{"name": "t", "inputSchema": {"type": "object", "properties": props, "required": originals}}]);
        let mut opts = ConvertOptions::default();
        opts.schema.strict = strict;
        let conv = convert(tools.clone(), provider, &opts).unwrap();
        let schema = match provider {
            Provider::Bedrock => conv.tools[0]["toolSpec"]["inputSchema"]["json"].clone(),
            _ => conv.tools[0]["input_schema"].clone(),
        };
        let sent: Vec<String> = schema["properties"].as_object().unwrap().keys().cloned().collect();
        prop_assert_eq!(sent.len(), originals.len());
        let legal = |k: &str| (1..=64).contains(&k.len()) && k.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
        for (o, n) in originals.iter().zip(&sent) {
            prop_assert!(legal(n), "{:?} -> {:?}", o, n);
            prop_assert!(!legal(o) || o == n, "a key Claude takes is kept: {:?} -> {:?}", o, n);
        }
        prop_assert_eq!(schema["required"].as_array().unwrap().len(), sent.len());
        // Every property given, its value its index: back under the server's keys.
        let args: Map<String, Value> = sent.iter().enumerate().map(|(i, k)| (k.clone(), json!(i))).collect();
        let expected: Map<String, Value> = originals.iter().enumerate().map(|(i, k)| (k.clone(), json!(i))).collect();
        let map = toolwire::naming::NameMap::from_json_value(conv.name_map.to_json_value()).unwrap();
        let back = match &map.resolve("t").unwrap().args {
            Some(plan) => plan.apply(Value::Object(args)),
            None => Value::Object(args),
        };
        prop_assert_eq!(back, Value::Object(expected));
        prop_assert_eq!(convert_json(&tools.to_string(), provider, &opts).unwrap(), serde_json::to_string(&conv.tools).unwrap());
    }
}

/// The pass-through path of `convert_json` gives the general path's output, byte for byte, for
/// every generated schema (as the root, and as a property of a clean root), and is taken for
/// some of them.
#[test]
fn pass_through_agrees_with_the_general_path() {
    use proptest::test_runner::{Config, TestRunner};
    let mut runner = TestRunner::new(Config { cases: 400, ..Config::default() });
    let (passed, left_out) = (std::cell::Cell::new(0usize), std::cell::Cell::new(0usize));
    runner
        .run(&schema(), |s| {
            for schema in [s.clone(), json!({"type": "object", "properties": {"p": s}})] {
                let tools = json!([{ "name": "t", "description": "generated", "inputSchema": schema }]);
                for (provider, mode) in [
                    (Provider::OpenAi, GeminiMode::Parameters),
                    (Provider::OpenAiResponses, GeminiMode::Parameters),
                    (Provider::Anthropic, GeminiMode::Parameters),
                    (Provider::Bedrock, GeminiMode::Parameters),
                    (Provider::Gemini, GeminiMode::JsonSchema),
                    (Provider::Gemini, GeminiMode::Parameters),
                    (Provider::Vertex, GeminiMode::Parameters),
                ] {
                    let mut opts = ConvertOptions::default();
                    opts.schema.gemini_mode = mode;
                    let general = convert(tools.clone(), provider, &opts).map(|c| c.tools.to_string());
                    let text = serde_json::to_string_pretty(&tools).unwrap();
                    let fast = convert_json(&text, provider, &opts);
                    match (general, fast) {
                        (Ok(g), Ok(f)) => prop_assert_eq!(g, f, "{:?}: input {}", provider, schema),
                        (Err(g), Err(f)) => prop_assert_eq!(g.code, f.code),
                        (g, f) => prop_assert!(false, "{:?}: {:?} vs {:?} for {}", provider, g.err(), f.err(), schema),
                    }
                    let reports = (toolwire::convert::check(tools.clone(), provider, &opts).ok(), check_json(&text, provider, &opts).ok());
                    prop_assert_eq!(reports.0, reports.1, "{:?}: reports differ for {}", provider, schema);
                    passed.set(passed.get() + passed_through(&text, provider, &opts.schema));
                    // The object API's conversion: a left-out schema is the input's, exactly.
                    if let Ok(leaving) = convert_json_leaving_schemas(&text, provider, &opts, false) {
                        for l in &leaving.left_out {
                            prop_assert_eq!(l.position, 0);
                            let out: Value = serde_json::from_str(&convert_json(&text, provider, &opts).unwrap()).unwrap();
                            let written = match provider {
                                Provider::Gemini => &out[0]["functionDeclarations"][0]["parametersJsonSchema"],
                                Provider::OpenAi => &out[0]["function"]["parameters"],
                                Provider::Anthropic => &out[0]["input_schema"],
                                Provider::Bedrock => &out[0]["toolSpec"]["inputSchema"]["json"],
                                _ => &out[0]["parameters"],
                            };
                            prop_assert_eq!(written, &schema, "{:?}: left out, but written otherwise", provider);
                            left_out.set(left_out.get() + 1);
                        }
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    assert!(passed.get() > 100, "only {} generated tools passed through", passed.get());
    assert!(left_out.get() > 50, "only {} generated schemas were left out", left_out.get());
}

/// A node of the kind Gemini's `parameters` lowers node by node (src/fast/gemini.rs), its keys
/// in any order: typed, nullable, untyped but inferable, `Optional[...]`-style `anyOf`s,
/// keywords kept, moved, described or dropped, descriptions present, blank or not strings.
fn gemini_node() -> impl Strategy<Value = Value> {
    node_of(leaf_entries())
}

/// The keys and values [`gemini_node`] builds nodes of.
fn leaf_entries() -> Vec<(&'static str, Value)> {
    vec![
        ("type", json!("string")),
        ("type", json!("integer")),
        ("type", json!("number")),
        ("type", json!("boolean")),
        ("type", json!(["string", "null"])),
        ("type", json!(["null", "integer"])),
        ("type", json!("null")),
        ("description", json!("d")),
        ("description", json!("ends.")),
        ("description", json!("  ")),
        ("description", json!(7)),
        ("title", json!("T")),
        ("format", json!("uri")),
        ("format", json!("date-time")),
        ("format", json!("int32")),
        ("format", json!("float")),
        ("minLength", json!(3)),
        ("maxItems", json!(2)),
        ("minItems", json!(-1)),
        ("minimum", json!(1.5)),
        ("maximum", json!(10)),
        ("exclusiveMinimum", json!(0)),
        ("pattern", json!("^a")),
        ("enum", json!(["a", "b"])),
        ("enum", json!([1, 2])),
        ("enum", json!(["a", null])),
        ("enum", json!([null, "b", "c"])),
        ("enum", json!(["b", "b", true])),
        ("const", json!("c")),
        ("const", json!(2)),
        ("oneOf", json!([{"type": "integer"}, {"type": "string", "const": "x"}])),
        ("default", json!("a")),
        ("default", json!(null)),
        ("default", json!(3)),
        ("example", json!("e")),
        ("examples", json!(["x", "y"])),
        ("examples", json!([])),
        ("additionalProperties", json!(false)),
        ("additionalProperties", json!(true)),
        ("additionalProperties", json!({"type": "string"})),
        ("$schema", json!("x")),
        ("x-tag", json!(1)),
        ("deprecated", json!(true)),
        ("nullable", json!(true)),
        ("nullable", json!(false)),
        ("uniqueItems", json!(true)),
        ("anyOf", json!([{"type": "string", "description": "inner"}, {"type": "null"}])),
        ("anyOf", json!([{"type": "null"}, {"format": "uri", "title": "U"}])),
        ("anyOf", json!([{"type": "integer"}])),
        ("anyOf", json!([{"type": "integer"}, {"type": "string"}])),
        ("anyOf", json!([{"format": "uuid", "description": " by id "}, {"pattern": "^[a-z]+$", "description": "by slug", "title": "S"}, {"type": "null"}])),
        ("anyOf", json!([{"type": "number", "minimum": 1}, {"type": ["boolean", "null"]}, {"enum": ["x"], "description": "d"}])),
        ("anyOf", json!([{"type": "string"}, {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}])),
        ("properties", json!({"a": {"type": "string"}})),
        ("required", json!(["a"])),
        ("items", json!({"type": "string"})),
        ("prefixItems", json!([{"type": "string"}])),
        ("unevaluatedItems", json!(false)),
    ]
}

/// Nodes made of `leaves`, nested as [`gemini_node`] says.
fn node_of(leaves: Vec<(&'static str, Value)>) -> impl Strategy<Value = Value> {
    let leaf_entries = prop::sample::select(leaves);
    let node = prop::collection::vec(leaf_entries, 0..7).prop_map(|entries| {
        // The first of a duplicated key is kept (a JSON object has each key once).
        let mut o = Map::new();
        for (k, v) in entries {
            o.entry(k).or_insert(v);
        }
        Value::Object(o)
    });
    node.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            (prop::collection::vec(inner.clone(), 0..4), any::<u8>(), prop::collection::vec(prop::sample::select(GEMINI_KEYS), 0..4))
                .prop_map(|(props, pick, extra)| {
                    let names: Vec<String> = (0..props.len()).map(|i| format!("p{i}")).collect();
                    let mut entries: Vec<(String, Value)> = vec![("type".into(), json!("object"))];
                    entries.push(("properties".into(), Value::Object(names.iter().cloned().zip(props).collect())));
                    let required: Vec<&String> = names.iter().enumerate().filter(|(i, _)| pick & (1 << i) != 0).map(|(_, n)| n).rev().collect();
                    if pick & 0x80 != 0 {
                        entries.push(("required".into(), json!(required)));
                    }
                    for k in extra {
                        entries.push((k.into(), if k == "nullable" { json!(true) } else { json!("v") }));
                    }
                    // Rotate so that `type`, `properties` and `required` come in every order.
                    let turn = (pick as usize >> 4) % entries.len();
                    entries.rotate_left(turn);
                    let mut o = Map::new();
                    for (k, v) in entries {
                        o.entry(k).or_insert(v);
                    }
                    Value::Object(o)
                }),
            (inner.clone(), any::<bool>()).prop_map(|(i, nullable)| {
                if nullable {
                    json!({"items": i, "type": ["array", "null"], "description": "list"})
                } else {
                    json!({"type": "array", "minItems": 1, "items": i})
                }
            }),
            inner.clone().prop_map(|i| json!({"description": "optional", "anyOf": [i, {"type": "null"}], "default": null})),
            // An object with a union of object shapes: merged into it when the shapes define
            // their common properties alike but for `enum` and `description`, else its own
            // properties copied into each branch (a `null` branch, a property defined twice).
            (prop::collection::vec((inner.clone(), any::<u8>()), 1..4), inner.clone(), any::<u8>()).prop_map(|(shapes, own, pick)| {
                let mut branches = Vec::new();
                for (i, (sub, bits)) in shapes.into_iter().enumerate() {
                    let mut props = Map::new();
                    props.insert("kind".into(), json!({"type": "string", "enum": [format!("k{i}")], "description": format!("kind {i}")}));
                    props.insert(format!("p{}", bits % 3), sub);
                    let mut b = Map::new();
                    b.insert("properties".into(), Value::Object(props));
                    for (bit, k, v) in [(8, "required", json!(["kind", format!("p{}", bits % 3)])), (16, "type", json!("object")), (32, "title", json!(format!("shape {i}"))), (64, "minProperties", json!(1))] {
                        if bits & bit != 0 {
                            b.insert(k.into(), v);
                        }
                    }
                    branches.push(Value::Object(b));
                }
                if pick & 1 != 0 {
                    branches.push(json!({"type": "null"}));
                }
                let mut o = Map::new();
                o.insert("type".into(), if pick & 4 != 0 { json!(["object", "null"]) } else { json!("object") });
                for (bit, k, v) in [(8, "properties", json!({"own": own})), (16, "required", json!(["own", "kind"])), (32, "description", json!("Shapes"))] {
                    if pick & bit != 0 {
                        o.insert(k.into(), v);
                    }
                }
                o.insert(if pick & 2 != 0 { "oneOf" } else { "anyOf" }.into(), Value::Array(branches));
                Value::Object(o)
            }),
            (inner.clone(), inner.clone(), any::<u8>()).prop_map(|(a, b, pick)| {
                let mut o = Map::new();
                let entries = [
                    ("title", json!("union")),
                    ("anyOf", json!([a, b])),
                    ("description", if pick & 1 == 0 { json!("one of ") } else { json!(1) }),
                    ("type", json!(["string", "null"])),
                    ("minLength", json!(2)),
                    ("default", json!("x")),
                ];
                for (i, (k, v)) in entries.into_iter().enumerate() {
                    if pick & (2 << i) != 0 || k == "anyOf" {
                        o.insert(k.into(), v);
                    }
                }
                Value::Object(o)
            }),
        ]
    })
}

const GEMINI_KEYS: &[&str] = &["description", "title", "$schema", "additionalProperties", "minProperties", "x-y", "example", "nullable"];

/// Gemini's `parameters` and Vertex, lowered node by node from the borrowed tree without a
/// change log (`convert_json`), give the general path's output byte for byte, and that path is
/// taken for most of these schemas.
#[test]
fn gemini_lowering_from_the_borrowed_tree_agrees_with_the_general_path() {
    use proptest::test_runner::{Config, TestRunner};
    let mut runner = TestRunner::new(Config { cases: 600, ..Config::default() });
    let (passed, total) = (std::cell::Cell::new(0usize), std::cell::Cell::new(0usize));
    let root = prop::collection::vec(gemini_node(), 0..4).prop_map(|props| {
        let names: Vec<String> = (0..props.len()).map(|i| format!("p{i}")).collect();
        json!({"required": names.first().map(|n| vec![n.clone()]).unwrap_or_default(), "type": "object", "properties": Value::Object(names.into_iter().zip(props).collect())})
    });
    runner
        .run(&(root, gemini_node()), |(root, node)| {
            for schema in [root, wrap(node.clone()), node] {
                let tools = json!([{ "name": "t", "description": "generated", "inputSchema": schema }]);
                let text = tools.to_string();
                for provider in [Provider::Gemini, Provider::Vertex] {
                    let opts = ConvertOptions::default();
                    let general = convert(tools.clone(), provider, &opts).map(|c| c.tools.to_string());
                    match (general, convert_json(&text, provider, &opts)) {
                        (Ok(g), Ok(f)) => prop_assert_eq!(g, f, "{:?}: input {}", provider, schema),
                        (Err(g), Err(f)) => prop_assert_eq!(g.code, f.code),
                        (g, f) => prop_assert!(false, "{:?}: {:?} vs {:?} for {}", provider, g.err(), f.err(), schema),
                    }
                    passed.set(passed.get() + passed_through(&text, provider, &opts.schema));
                    total.set(total.get() + 1);
                }
            }
            Ok(())
        })
        .unwrap();
    assert!(passed.get() * 3 > total.get(), "only {} of {} generated tools were lowered from the borrowed tree", passed.get(), total.get());
}

/// Gemini's declarations are written into the output as their tools are lowered, up to the first
/// tool that goes the general way (`fast::Declarations`). Sets that mix the two in any order,
/// with tools named alike, `serverName`s (empty too), titles in place of descriptions, and tools
/// without a schema, give the general path's output byte for byte, compact and pretty-printed.
#[test]
fn gemini_declarations_written_as_lowered_agree_with_the_general_path() {
    use proptest::test_runner::{Config, TestRunner};
    let mut runner = TestRunner::new(Config { cases: 300, ..Config::default() });
    let (passed, total) = (std::cell::Cell::new(0usize), std::cell::Cell::new(0usize));
    let schema = prop_oneof![
        4 => prop::collection::vec(gemini_node(), 0..3).prop_map(|props| {
            let names: Vec<String> = (0..props.len()).map(|i| format!("p{i}")).collect();
            Some(json!({"type": "object", "properties": Value::Object(names.into_iter().zip(props).collect())}))
        }),
        2 => gemini_node().prop_map(Some),
        1 => Just(None),
    ];
    let tool = (0..3usize, schema, prop::option::of(prop::sample::select(vec!["", "a", "b"])), 0..3usize).prop_map(|(name, schema, server, text)| {
        let mut t = Map::new();
        t.insert("name".into(), json!(format!("t{name}")));
        match text {
            0 => t.insert("description".into(), json!("does \"it\"\n")),
            1 => t.insert("title".into(), json!("Titled é")),
            _ => None,
        };
        if let Some(server) = server {
            t.insert("serverName".into(), json!(server));
        }
        if let Some(schema) = schema {
            t.insert("inputSchema".into(), schema);
        }
        Value::Object(t)
    });
    runner
        .run(&prop::collection::vec(tool, 1..6), |tools| {
            let tools = Value::Array(tools);
            for text in [tools.to_string(), serde_json::to_string_pretty(&tools).unwrap()] {
                for provider in [Provider::Gemini, Provider::Vertex] {
                    let opts = ConvertOptions { server: Some("srv".into()), ..ConvertOptions::default() };
                    let general = convert(tools.clone(), provider, &opts).map(|c| c.tools.to_string());
                    match (general, convert_json(&text, provider, &opts)) {
                        (Ok(g), Ok(f)) => prop_assert_eq!(g, f, "{:?}: input {}", provider, tools),
                        (Err(g), Err(f)) => prop_assert_eq!(g.code, f.code),
                        (g, f) => prop_assert!(false, "{:?}: {:?} vs {:?} for {}", provider, g.err(), f.err(), tools),
                    }
                    passed.set(passed.get() + passed_through(&text, provider, &opts.schema));
                    total.set(total.get() + tools.as_array().map_or(0, Vec::len));
                }
            }
            Ok(())
        })
        .unwrap();
    assert!(passed.get() * 3 > total.get(), "only {} of {} generated tools were lowered from the borrowed tree", passed.get(), total.get());
}

/// What the strict modes treat apart, beside [`leaf_entries`]: kept keywords, constraints
/// Anthropic does not support, keywords OpenAI cannot express (the schema is then sent
/// non-strict), and ones the general path merges.
fn strict_leaf_entries() -> Vec<(&'static str, Value)> {
    let mut leaves = leaf_entries();
    leaves.extend([
        ("format", json!("email")),
        ("format", json!(7)),
        ("const", json!("c")),
        ("type", json!([])),
        ("type", json!(["object", "null"])),
        ("type", json!("array")),
        ("minProperties", json!(1)),
        ("multipleOf", json!(2)),
        ("examples", json!([{"a": 1}])),
        ("dependentRequired", json!({"a": ["b"]})),
        ("not", json!({"type": "string"})),
        ("patternProperties", json!({"^x": {"type": "string"}})),
        ("propertyNames", json!({"pattern": "^a"})),
        ("items", json!([{"type": "string"}])),
        ("items", json!(true)),
        ("anyOf", json!([{"type": "object", "properties": {"k": {"type": "string"}}}, {"type": "null"}])),
        ("anyOf", json!([])),
        ("oneOf", json!([{"type": "string"}, {"type": "integer"}])),
        ("allOf", json!([{"type": "string"}])),
        ("properties", json!({"b": true})),
        ("properties", json!({"n": {"type": "object", "properties": {"m": {"type": "object"}}}})),
        ("enum", json!(["a", "b", null])),
        ("minItems", json!(2)),
        ("minItems", json!(1.0)),
        ("minItems", json!(0)),
        ("maxLength", json!(5)),
        ("exclusiveMaximum", json!(3)),
        ("if", json!({"type": "object"})),
        ("contains", json!({"type": "string", "maxLength": 2})),
        ("$defs", json!({"D": {"type": "object", "minimum": 1}})),
    ]);
    leaves
}

/// The strict modes of OpenAI (Chat and Responses) and Anthropic, written from the borrowed tree
/// without a change log (`convert_json`, `convert_json_named`), give the general path's tools
/// byte for byte and its argument plans, and that path is taken for many of these schemas.
#[test]
fn strict_modes_from_the_borrowed_tree_agree_with_the_general_path() {
    use proptest::test_runner::{Config, TestRunner};
    let mut runner = TestRunner::new(Config { cases: 600, ..Config::default() });
    let (passed, total) = (std::cell::Cell::new(0usize), std::cell::Cell::new(0usize));
    let node = || node_of(strict_leaf_entries());
    let root = (prop::collection::vec(node(), 0..4), any::<u8>()).prop_map(|(props, pick)| {
        let names: Vec<String> = (0..props.len()).map(|i| format!("p{i}")).collect();
        let required: Vec<&String> = names.iter().enumerate().filter(|(i, _)| pick & (1 << i) != 0).collect::<Vec<_>>().into_iter().map(|(_, n)| n).collect();
        json!({"required": required, "type": "object", "properties": Value::Object(names.iter().cloned().zip(props).collect())})
    });
    runner
        .run(&(root, node()), |(root, node)| {
            for schema in [root, wrap(node.clone()), node] {
                let tools = json!([{ "name": "t", "description": "generated", "inputSchema": schema }]);
                let text = serde_json::to_string_pretty(&tools).unwrap();
                for provider in [Provider::OpenAi, Provider::OpenAiResponses, Provider::Anthropic, Provider::Bedrock] {
                    let mut opts = ConvertOptions::default();
                    opts.schema.strict = true;
                    let general = convert(tools.clone(), provider, &opts);
                    match (&general, convert_json(&text, provider, &opts)) {
                        (Ok(g), Ok(f)) => prop_assert_eq!(g.tools.to_string(), f, "{:?}: input {}", provider, schema),
                        (Err(g), Err(f)) => prop_assert_eq!(g.code, f.code),
                        (g, f) => prop_assert!(false, "{:?}: {:?} vs {:?} for {}", provider, g.as_ref().err(), f.err(), schema),
                    }
                    if let (Ok(g), Ok(named)) = (&general, convert_json_named(&text, provider, &opts)) {
                        prop_assert_eq!(&g.name_map, &named.name_map, "{:?}: argument plans differ for {}", provider, schema);
                    }
                    passed.set(passed.get() + passed_through(&text, provider, &opts.schema));
                    total.set(total.get() + 1);
                }
            }
            Ok(())
        })
        .unwrap();
    // A fifth at least: the leaves with values of the wrong kind (`format: 7`, `minItems: -1`,
    // `description: 7`) or that the meta-schema refuses (`type: []`, `anyOf: []`) send their
    // schemas the general way, which removes them.
    assert!(passed.get() * 5 > total.get(), "only {} of {} generated tools took the borrowed tree", passed.get(), total.get());
}

/// `{"type":"object","properties":{"n": inner}}`, built without serde (whose recursive
/// serialisation would itself be the deepest thing in this test).
fn wrap(inner: Value) -> Value {
    let mut props = Map::new();
    props.insert("n".into(), inner);
    let mut o = Map::new();
    o.insert("type".into(), Value::String("object".into()));
    o.insert("properties".into(), Value::Object(props));
    Value::Object(o)
}

#[test]
fn nesting_1000_deep_ends_in_a_typed_error() {
    // Run on a thread with a known stack so the test measures the converter, not the runner.
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(|| {
            let mut s = json!({"type": "string"});
            for _ in 0..1000 {
                s = wrap(s);
            }
            for (provider, strict, mode, _) in targets() {
                let mut opts = ConvertOptions::default();
                opts.schema.strict = strict;
                opts.schema.gemini_mode = mode;
                let mut tool = Map::new();
                tool.insert("name".into(), Value::String("deep".into()));
                tool.insert("inputSchema".into(), s.clone());
                let err = convert(Value::Array(vec![Value::Object(tool)]), provider, &opts).unwrap_err();
                assert_eq!(err.code, ErrorCode::LimitExceeded);
                assert_eq!(err.tool.as_deref(), Some("deep"));
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn cyclic_refs_finish() {
    let schemas = [
        json!({"$ref": "#"}),
        json!({"type": "object", "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}, "properties": {"x": {"$ref": "#/$defs/A"}}}),
        json!({"type": "object", "properties": {"self": {"$ref": "#/properties/self"}}}),
        json!({"type": "object", "$defs": {"T": {"type": "object", "properties": {"l": {"$ref": "#/$defs/T"}, "r": {"$ref": "#/$defs/T"}, "list": {"type": "array", "items": {"$ref": "#/$defs/T"}}}}}, "properties": {"t": {"$ref": "#/$defs/T"}}}),
    ];
    for s in &schemas {
        check(s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
}

/// Schemas whose definitions refer to each other (and to the root) from every kind of
/// position: under `properties`, under an array's `items`, inside `anyOf`, with siblings.
fn schema_with_defs() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!({"$ref": "#/$defs/D0"})),
        Just(json!({"$ref": "#/$defs/D1"})),
        Just(json!({"$ref": "#/$defs/D2"})),
        Just(json!({"$ref": "#"})),
        Just(json!({"type": "string", "format": "uri"})),
        Just(json!({"type": "integer", "minimum": 1})),
        Just(json!({"enum": [1, "a", null]})),
        Just(json!(false)),
        // Strings to escape when written (the borrowed lowering copies them instead of borrowing).
        Just(json!({"type": "string", "description": "say \"hi\"\n\tand \\ back", "enum": ["a\"b", "c\u{1}d"]})),
    ];
    let node = leaf.prop_recursive(4, 40, 4, |inner| {
        prop_oneof![
            prop::collection::vec((prop::sample::select(&["a", "b", "c", "$ref", "q\"uote"][..]), inner.clone()), 1..4).prop_map(|props| {
                let names: Vec<&str> = props.iter().map(|(k, _)| *k).collect();
                let props: Map<String, Value> = props.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
                json!({"type": "object", "properties": props, "required": names, "additionalProperties": false})
            }),
            inner.clone().prop_map(|i| json!({"type": "array", "items": i, "minItems": 1})),
            inner.clone().prop_map(|i| json!({"anyOf": [i, {"type": "null"}]})),
            inner.clone().prop_map(|i| json!({"type": ["object", "null"], "properties": {"x": i}})),
            inner.clone().prop_map(|i| json!({"type": "object", "properties": {"x": i}, "allOf": [{"required": ["x"]}]})),
            Just(json!({"$ref": "#/$defs/D1", "description": "with a sibling"})),
        ]
    });
    (node.clone(), node.clone(), node.clone(), node.clone(), node).prop_map(|(p, q, d0, d1, d2)| {
        json!({"type": "object", "properties": {"p": p, "q": q, "r": {"$ref": "#/$defs/D0"}}, "$defs": {"D0": d0, "D1": d1, "D2": d2}})
    })
}

/// The conversions that share `$ref` expansions through the JSON API: (provider, strict, mode).
const SHARING: [(Provider, bool, GeminiMode); 7] = [
    (Provider::Gemini, false, GeminiMode::Parameters),
    (Provider::Vertex, false, GeminiMode::Parameters),
    (Provider::Gemini, false, GeminiMode::JsonSchema),
    (Provider::OpenAi, true, GeminiMode::Parameters),
    (Provider::OpenAiResponses, true, GeminiMode::Parameters),
    (Provider::Anthropic, true, GeminiMode::Parameters),
    (Provider::Bedrock, true, GeminiMode::Parameters),
];

/// Without a change log (`convert_json`), Gemini shares `$ref` expansions between the places
/// that use them (expanded, rewritten and written once) and the strict modes copy them in only
/// where their walk gets to; `convert`, which keeps a change log, expands every copy. Both give
/// the same text, or the same error, also under tight limits where a shared copy no longer fits
/// and under every unrolling bound.
#[test]
fn shared_ref_expansions_give_the_full_expansion() {
    use proptest::test_runner::{Config, TestRunner};
    let mut runner = TestRunner::new(Config { cases: 600, ..Config::default() });
    let limits = (prop::sample::select(&[100_000usize, 400, 80][..]), prop::sample::select(&[64usize, 12, 7][..]), 1usize..4);
    runner
        .run(&(schema_with_defs(), limits), |(schema, (max_nodes, max_depth, unroll))| {
            let tools = json!([{ "name": "t", "description": "generated", "inputSchema": schema }]);
            for (provider, strict, mode) in SHARING {
                let mut opts = ConvertOptions::default();
                opts.schema.gemini_mode = mode;
                opts.schema.strict = strict;
                opts.schema.limits.max_nodes = max_nodes;
                opts.schema.limits.max_depth = max_depth;
                opts.schema.limits.max_ref_unroll = unroll;
                let full = convert(tools.clone(), provider, &opts).map(|c| c.tools.to_string());
                let shared = convert_json(&tools.to_string(), provider, &opts);
                match (full, shared) {
                    (Ok(f), Ok(s)) => prop_assert_eq!(f, s, "{:?} {:?}: input {}", provider, mode, schema),
                    (Err(f), Err(s)) => prop_assert_eq!(f.to_string(), s.to_string(), "{:?} {:?}: input {}", provider, mode, schema),
                    (f, s) => prop_assert!(false, "{:?} {:?}: {:?} vs {:?} for {}", provider, mode, f.err(), s.err(), schema),
                }
            }
            Ok(())
        })
        .unwrap();
}

/// The same agreement at every node limit and depth limit around where a shared copy stops
/// fitting, on a definition used many times (whose rewrite has more nodes than its expansion:
/// a type list becomes one branch per type, an array gets `items`) and on a fan-out that
/// reaches the expansion's size budget.
#[test]
fn shared_ref_expansions_give_the_full_expansion_at_every_limit() {
    let mut fan = Map::new();
    for i in 0..12 {
        let next = format!("#/$defs/L{}", i + 1);
        fan.insert(format!("L{i}"), json!({"type": "object", "properties": {"a": {"$ref": next}, "b": {"$ref": next}, "c": {"type": "array", "items": {"$ref": next}}}}));
    }
    fan.insert("L12".into(), json!({"type": ["string", "integer", "boolean"], "description": "leaf"}));
    let schemas = [
        json!({"type": "object", "$defs": fan, "properties": {"x": {"$ref": "#/$defs/L0"}, "y": {"$ref": "#/$defs/L3"}}}),
        json!({
            "type": "object",
            "$defs": {
                "Id": {"type": ["string", "integer", "null"], "description": "id", "minLength": 1},
                "User": {"type": "object", "properties": {"id": {"$ref": "#/$defs/Id"}, "boss": {"$ref": "#/$defs/User"}, "tags": {"type": "array", "items": {"$ref": "#/$defs/Id"}}, "any": {"type": "array"}, "more": {"type": "array"}}},
                "Team": {"type": "object", "properties": {"lead": {"$ref": "#/$defs/User"}, "members": {"type": "array", "items": {"$ref": "#/$defs/User"}}, "id": {"$ref": "#/$defs/Id"}}},
                "Bag": {"type": "object", "properties": {"a": {"type": "array"}, "b": {"type": "array"}, "c": {"type": "array"}, "d": {"type": "array"}}}
            },
            "properties": {"a": {"$ref": "#/$defs/Team"}, "b": {"$ref": "#/$defs/Team"}, "c": {"$ref": "#/$defs/User"}, "d": {"$ref": "#/$defs/Id"}, "e": {"$ref": "#/$defs/Bag"}, "f": {"$ref": "#/$defs/Bag"}, "g": {"$ref": "#/$defs/Bag"}}
        }),
        // A reference to a reference: the shared expansion is itself a placeholder.
        json!({
            "type": "object",
            "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "object", "properties": {"s": {"anyOf": [{"type": "string"}, {"type": "null"}]}}, "required": ["s"]}},
            "properties": {"p": {"$ref": "#/$defs/A"}, "q": {"$ref": "#/$defs/A"}},
            "required": ["p", "q"]
        }),
        // Rewriting adds more nodes than expanding counted (four `items` per copy, one `$ref`).
        json!({
            "type": "object",
            "$defs": {"Bag": {"type": "object", "properties": {"a": {"type": "array"}, "b": {"type": "array"}, "c": {"type": "array"}, "d": {"type": "array"}}}},
            "properties": {"e": {"$ref": "#/$defs/Bag"}, "f": {"$ref": "#/$defs/Bag"}, "g": {"$ref": "#/$defs/Bag"}}
        }),
    ];
    let mut agreed = (0, 0);
    for schema in &schemas {
        let tools = json!([{ "name": "t", "inputSchema": schema }]);
        let text = tools.to_string();
        for max_depth in [4usize, 6, 8, 10, 64] {
            for max_nodes in (10..400).step_by(2).chain([1_000, 2_500, 5_000, 100_000]) {
                for (provider, strict, mode) in SHARING {
                    let mut opts = ConvertOptions::default();
                    opts.schema.gemini_mode = mode;
                    opts.schema.strict = strict;
                    opts.schema.limits.max_nodes = max_nodes;
                    opts.schema.limits.max_depth = max_depth;
                    let full = convert(tools.clone(), provider, &opts).map(|c| c.tools.to_string());
                    let shared = convert_json(&text, provider, &opts);
                    match (full, shared) {
                        (Ok(f), Ok(s)) => {
                            assert_eq!(f, s, "{provider:?} {mode:?} nodes {max_nodes} depth {max_depth}: {schema}");
                            agreed.0 += 1;
                        }
                        (Err(f), Err(s)) => {
                            assert_eq!(f.to_string(), s.to_string(), "{provider:?} {mode:?} nodes {max_nodes} depth {max_depth}: {schema}");
                            agreed.1 += 1;
                        }
                        (f, s) => panic!("{provider:?} {mode:?} nodes {max_nodes} depth {max_depth}: {:?} vs {:?}", f.err(), s.err()),
                    }
                }
            }
        }
    }
    // Both outcomes are exercised: conversions that fit and limits that are exceeded.
    assert!(agreed.0 > 50 && agreed.1 > 50, "{agreed:?}");
}

/// A schema of thousands of definitions in layers, each referring three times to the next
/// layer, every one of the first layer used from the root: the shared and the full expansion
/// agree (the expansion's size budget cuts both in the same places), and the bookkeeping stays
/// proportional to the work (ids by hash, each visited set collected once per expansion).
#[test]
fn shared_ref_expansions_agree_on_thousands_of_definitions() {
    let (layers, width) = (10, 300);
    let name = |l: usize, k: usize| format!("L{l}_{}", k % width);
    let mut defs = Map::new();
    for l in 0..layers {
        for k in 0..width {
            let def = if l + 1 == layers {
                json!({"type": "string", "description": name(l, k)})
            } else {
                let r = |j: usize| json!({ "$ref": format!("#/$defs/{}", name(l + 1, j)) });
                json!({"type": "object", "properties": {"next": r(k), "jump": r(k * 7 + 3), "list": {"type": "array", "items": r(k / 2)}}})
            };
            defs.insert(name(l, k), def);
        }
    }
    let props: Map<String, Value> = (0..width).map(|k| (format!("p{k}"), json!({ "$ref": format!("#/$defs/{}", name(0, k)) }))).collect();
    let schema = json!({"type": "object", "$defs": defs, "properties": props});
    let tools = json!([{ "name": "wide", "inputSchema": schema }]);
    let text = tools.to_string();
    let mut converted = 0;
    for (provider, strict, mode) in SHARING {
        let mut opts = ConvertOptions::default();
        opts.schema.gemini_mode = mode;
        opts.schema.strict = strict;
        let full = convert(tools.clone(), provider, &opts).map(|c| c.tools.to_string());
        let shared = convert_json(&text, provider, &opts);
        match (full, shared) {
            (Ok(f), Ok(s)) => {
                assert!(f == s, "{provider:?} {mode:?} strict={strict}: outputs differ");
                converted += 1;
            }
            (Err(f), Err(s)) => assert_eq!(f.to_string(), s.to_string(), "{provider:?} {mode:?} strict={strict}"),
            (f, s) => panic!("{provider:?} {mode:?} strict={strict}: {:?} vs {:?}", f.err(), s.err()),
        }
    }
    assert_eq!(converted, SHARING.len(), "every conversion finishes (the budget cuts the expansion)");
}

/// Recursive schemas under OpenAI strict keep their references (into a root `$defs` table, or
/// `#`), and the result is valid Structured Outputs for Chat and Responses, through both APIs
/// alike.
#[test]
fn recursive_schemas_are_strict_for_openai_with_their_references_kept() {
    let schemas = [
        json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/node"}},
               "$defs": {"node": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}}),
        json!({"type": "object", "properties": {"next": {"$ref": "#", "description": "the rest"}, "v": {"type": "integer"}}, "required": ["v"]}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/definitions/a"}},
               "definitions": {"a": {"type": "object", "properties": {"b": {"$ref": "#/definitions/b"}}},
                               "b": {"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#/definitions/a"}, {"type": "string", "format": "uri"}]}}}}}),
    ];
    for schema in schemas {
        let tools = json!([{ "name": "t", "description": "recursive", "inputSchema": schema }]);
        for (provider, target) in [(Provider::OpenAi, Target::OpenAiStrict), (Provider::OpenAiResponses, Target::OpenAiResponsesStrict)] {
            let mut opts = ConvertOptions::default();
            opts.schema.strict = true;
            let conv = convert(tools.clone(), provider, &opts).unwrap();
            assert!(conv.report.problems.is_empty(), "{schema}: {:?}", conv.report.problems);
            let v = validate(target, &conv.tools);
            assert!(v.is_empty(), "{target:?}: {v:?}\n{}", conv.tools);
            let text = conv.tools.to_string();
            assert!(text.contains("\"$ref\"") && text.contains("\"strict\":true"), "{text}");
            assert_eq!(convert_json(&tools.to_string(), provider, &opts).unwrap(), text);
        }
    }
}

fn strict_openai(schema: Value) -> toolwire::convert::Conversion {
    let mut opts = ConvertOptions::default();
    opts.schema.strict = true;
    let conv = convert(json!([{ "name": "t", "inputSchema": schema }]), Provider::OpenAi, &opts).unwrap();
    let v = validate(Target::OpenAiStrict, &conv.tools);
    assert!(v.is_empty(), "{v:?}\n{}", conv.tools);
    conv
}

/// Recursive schemas whose references cannot simply be kept: an `allOf` over one (its merge
/// needs the target's keywords) and a reference to what is not a schema object fall back; a
/// one-branch `allOf` is the reference itself; a target outside any subschema position is
/// still a definition, its own references rewritten.
#[test]
fn recursive_references_that_cannot_simply_be_kept() {
    let node = |child: Value| {
        json!({"type": "object", "properties": {"root": {"$ref": "#/definitions/Node"}}, "required": ["root"],
               "definitions": {"Node": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "child": child}}}})
    };
    let merged = strict_openai(node(json!({"allOf": [{"$ref": "#/definitions/Node"}, {"type": "object", "properties": {"extra": {"type": "integer"}}}]})));
    assert_eq!(merged.tools[0]["function"]["strict"], json!(false));
    assert!(merged.report.tools[0].problems.iter().any(|d| d.message.contains("allOf")), "{:?}", merged.report.tools[0].problems);

    let described = strict_openai(node(json!({"description": "the child", "allOf": [{"$ref": "#/definitions/Node"}]})));
    let f = &described.tools[0]["function"];
    assert_eq!(f["strict"], json!(true));
    assert_eq!(f["parameters"]["$defs"]["Node"]["properties"]["child"], json!({"description": "the child", "anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}));

    let outside = strict_openai(json!({"type": "object", "properties": {"a": {"$ref": "#/x-node"}}, "x-node": {"type": "object", "properties": {"next": {"$ref": "#/x-node"}}}}));
    let f = &outside.tools[0]["function"];
    assert_eq!(f["strict"], json!(true));
    assert_eq!(f["parameters"]["$defs"]["ref1"]["properties"]["next"]["anyOf"][0], json!({"$ref": "#/$defs/ref1"}));

    let not_a_schema = strict_openai(json!({"type": "object", "properties": {"a": {"$ref": "#/properties/b/type"}, "b": {"type": "object", "properties": {"c": {"$ref": "#/properties/b"}}}}}));
    assert_eq!(not_a_schema.tools[0]["function"]["strict"], json!(false));
}

/// The argument plan of a recursive schema follows each reference once per value, however
/// the references cycle through `anyOf`s, and reaches as deep as the value goes.
#[test]
fn recursive_argument_plans_end_and_reach_every_depth() {
    let cycle = strict_openai(json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "required": ["a"],
        "$defs": {"A": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/A"}, {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "integer"}}}]}}}));
    let plan = cycle.name_map.entries()[0].args.clone().unwrap();
    assert_eq!(plan.apply(json!({"a": {"x": "s", "y": null}})), json!({"a": {"x": "s"}}));

    let list = strict_openai(json!({"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#"}}}));
    let plan = list.name_map.entries()[0].args.clone().unwrap();
    let mut value = json!({"v": 0, "next": null});
    for i in 1..100 {
        value = json!({"v": i, "next": value});
    }
    assert!(!plan.apply(value).to_string().contains("null"));
}
