//! Property tests on generated schemas: for every provider and mode, conversion never panics,
//! finishes in bounded time, and its output passes the independent provider validator (or the
//! conversion ends in a typed limit error). Plus the adversarial shapes: 1,000-deep nesting and
//! cyclic `$ref`s.
#![cfg(not(target_arch = "wasm32"))]

mod validator;

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use toolwire::convert::{check_json, convert, convert_json, ConvertOptions};
use toolwire::fast::passed_through;
use toolwire::providers::{GeminiMode, Provider};
use toolwire::ErrorCode;
use validator::{validate, Target};

const NAMES: &[&str] = &["a", "b", "type", "format", "$ref", "properties", "if", "items", "enum", "x-y", "__proto__"];
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

/// The pass-through path of `convert_json` gives the general path's output, byte for byte, for
/// every generated schema (as the root, and as a property of a clean root), and is taken for
/// some of them.
#[test]
fn pass_through_agrees_with_the_general_path() {
    use proptest::test_runner::{Config, TestRunner};
    let mut runner = TestRunner::new(Config { cases: 400, ..Config::default() });
    let passed = std::cell::Cell::new(0usize);
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
                }
            }
            Ok(())
        })
        .unwrap();
    assert!(passed.get() > 100, "only {} generated tools passed through", passed.get());
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
