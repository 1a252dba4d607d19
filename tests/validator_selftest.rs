//! Self-tests for the provider-constraint validator in `tests/validator/mod.rs`.
//!
//! For every rule: one small hand-written output that violates it (the rule
//! id must be reported) and one that satisfies it (no violations at all).
//! Plus the keyword-as-property-name cases (a property called `type`,
//! `format`, `$ref`, `properties`, `if`, … is a NAME, never a keyword).
#![cfg(not(target_arch = "wasm32"))] // native only, like the validator it tests

mod validator;

use serde_json::{json, Map, Value};
use validator::{validate, Target, Violation};

const ALL_TARGETS: [Target; 11] = [
    Target::OpenAi,
    Target::OpenAiStrict,
    Target::OpenAiResponses,
    Target::OpenAiResponsesStrict,
    Target::Anthropic,
    Target::AnthropicStrict,
    Target::GeminiParameters,
    Target::GeminiJsonSchema,
    Target::Vertex,
    Target::Bedrock,
    Target::BedrockStrict,
];

// ---------------------------------------------------------------------------
// Helpers: build outputs in each provider's shape
// ---------------------------------------------------------------------------

/// Targets whose wrapper marks tools `strict: true`.
fn is_strict(target: Target) -> bool {
    matches!(target, Target::OpenAiStrict | Target::OpenAiResponsesStrict | Target::AnthropicStrict | Target::BedrockStrict)
}

fn is_gemini(target: Target) -> bool {
    matches!(target, Target::GeminiParameters | Target::GeminiJsonSchema | Target::Vertex)
}

/// One tool entry (Gemini: one function declaration) in `target`'s shape.
fn entry(target: Target, name: &str, schema: Value, strict: bool) -> Value {
    match target {
        Target::OpenAi | Target::OpenAiStrict => {
            let mut f = json!({"name": name, "description": "d", "parameters": schema});
            if strict {
                f["strict"] = json!(true);
            }
            json!({"type": "function", "function": f})
        }
        Target::OpenAiResponses | Target::OpenAiResponsesStrict => {
            json!({"type": "function", "name": name, "description": "d", "parameters": schema, "strict": strict})
        }
        Target::Anthropic | Target::AnthropicStrict => {
            let mut t = json!({"name": name, "description": "d", "input_schema": schema});
            if strict {
                t["strict"] = json!(true);
            }
            t
        }
        Target::GeminiParameters | Target::Vertex => json!({"name": name, "description": "d", "parameters": schema}),
        Target::GeminiJsonSchema => json!({"name": name, "description": "d", "parametersJsonSchema": schema}),
        Target::Bedrock | Target::BedrockStrict => {
            let mut t = json!({"toolSpec": {"name": name, "description": "d", "inputSchema": {"json": schema}}});
            if strict {
                t["toolSpec"]["strict"] = json!(true);
            }
            t
        }
    }
}

/// Assemble entries into the whole output value.
fn output(target: Target, entries: Vec<Value>) -> Value {
    if is_gemini(target) {
        json!([{"functionDeclarations": entries}])
    } else {
        Value::Array(entries)
    }
}

/// A one-tool output named `t`, strict when the target is a strict variant.
fn wrap(target: Target, schema: Value) -> Value {
    output(target, vec![entry(target, "t", schema, is_strict(target))])
}

fn run(target: Target, out: &Value) -> Vec<Violation> {
    validate(target, out)
}

#[track_caller]
fn assert_violates(target: Target, out: &Value, rule: &str) {
    let v = run(target, out);
    assert!(v.iter().any(|x| x.rule == rule), "{target:?}: expected rule {rule} in {v:#?}\noutput: {out}");
}

#[track_caller]
fn assert_clean(target: Target, out: &Value) {
    let v = run(target, out);
    assert!(v.is_empty(), "{target:?}: expected no violations, got {v:#?}\noutput: {out}");
}

/// Schema-level case: `bad`/`good` are the tool's schema, wrapped by [`wrap`].
macro_rules! schema_case {
    ($name:ident, $target:expr, $rule:literal, bad: $bad:tt, good: $good:tt $(,)?) => {
        #[test]
        fn $name() {
            assert_violates($target, &wrap($target, json!($bad)), $rule);
            assert_clean($target, &wrap($target, json!($good)));
        }
    };
}

/// Output-level case: `bad`/`good` are whole outputs.
macro_rules! output_case {
    ($name:ident, $target:expr, $rule:literal, bad: $bad:tt, good: $good:tt $(,)?) => {
        #[test]
        fn $name() {
            assert_violates($target, &json!($bad), $rule);
            assert_clean($target, &json!($good));
        }
    };
}

/// Smallest strict-compatible object schema.
fn empty_strict_object() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

// ---------------------------------------------------------------------------
// Baselines: a realistic valid output per target
// ---------------------------------------------------------------------------

#[test]
fn realistic_outputs_are_clean_for_every_target() {
    let portable = json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "file path"},
            "mode": {"type": "string", "enum": ["r", "w"]},
            "lines": {"type": "array", "items": {"type": "integer"}},
            "opts": {"type": "object", "properties": {"deep": {"type": "boolean"}}, "required": ["deep"], "additionalProperties": false}
        },
        "required": ["path", "mode", "lines", "opts"],
        "additionalProperties": false
    });
    // Gemini `parameters` has no additionalProperties.
    let gemini = json!({
        "type": "OBJECT",
        "properties": {
            "path": {"type": "STRING", "description": "file path"},
            "mode": {"type": "string", "enum": ["r", "w"], "nullable": true},
            "lines": {"type": "array", "items": {"type": "integer", "format": "int64"}},
            "when": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "number", "format": "double"}]},
            "opts": {"type": "object", "properties": {"deep": {"type": "boolean"}}, "required": ["deep"]}
        },
        "required": ["path"],
        "propertyOrdering": ["path", "mode", "lines", "when", "opts"]
    });
    for target in ALL_TARGETS {
        let gemini_params = matches!(target, Target::GeminiParameters | Target::Vertex);
        let schema = if gemini_params { gemini.clone() } else { portable.clone() };
        // No-arg tool: Gemini `parameters` forbids empty `properties` and additionalProperties.
        let noop = if gemini_params { json!({"type": "object"}) } else { empty_strict_object() };
        let out = output(target, vec![
            entry(target, "mcp__fs__read_file", schema, is_strict(target)),
            entry(target, "mcp__fs__noop", noop, false),
        ]);
        assert_clean(target, &out);
    }
}

#[test]
fn gemini_noarg_tool_may_omit_parameters() {
    for target in [Target::GeminiParameters, Target::Vertex, Target::GeminiJsonSchema] {
        assert_clean(target, &json!([{"functionDeclarations": [{"name": "ping"}]}]));
    }
}

#[test]
fn empty_outputs_are_clean() {
    for target in ALL_TARGETS {
        assert_clean(target, &json!([]));
    }
}

// ---------------------------------------------------------------------------
// Output / tool-entry shape
// ---------------------------------------------------------------------------

output_case!(shape_output_not_array, Target::OpenAi, "shape/output",
    bad: {"type": "function", "function": {"name": "a", "parameters": {"type": "object", "properties": {}}}},
    good: [{"type": "function", "function": {"name": "a", "parameters": {"type": "object", "properties": {}}}}]);

output_case!(shape_output_gemini_tools_object, Target::GeminiParameters, "shape/output",
    bad: {"functionDeclarations": [{"name": "a"}]},
    good: [{"functionDeclarations": [{"name": "a"}]}]);

output_case!(shape_output_gemini_two_outer_elements, Target::GeminiJsonSchema, "shape/output",
    bad: [{"functionDeclarations": [{"name": "a"}]}, {"functionDeclarations": [{"name": "b"}]}],
    good: [{"functionDeclarations": [{"name": "a"}, {"name": "b"}]}]);

output_case!(shape_tool_chat_missing_function_wrapper, Target::OpenAi, "shape/tool",
    bad: [{"type": "function", "name": "a", "parameters": {"type": "object", "properties": {}}}],
    good: [{"type": "function", "function": {"name": "a", "parameters": {"type": "object", "properties": {}}}}]);

output_case!(shape_tool_responses_needs_type_function, Target::OpenAiResponses, "shape/tool",
    bad: [{"name": "a", "parameters": {"type": "object", "properties": {}}, "strict": false}],
    good: [{"type": "function", "name": "a", "parameters": {"type": "object", "properties": {}}, "strict": false}]);

output_case!(shape_tool_bedrock_needs_toolspec, Target::Bedrock, "shape/tool",
    bad: [{"name": "a", "inputSchema": {"json": {"type": "object"}}}],
    good: [{"toolSpec": {"name": "a", "inputSchema": {"json": {"type": "object"}}}}]);

output_case!(shape_unknown_field_mcp_leftover, Target::Anthropic, "shape/unknown-field",
    bad: [{"name": "a", "input_schema": {"type": "object"}, "inputSchema": {"type": "object"}}],
    good: [{"name": "a", "input_schema": {"type": "object"}}]);

output_case!(shape_name_missing, Target::Anthropic, "shape/name",
    bad: [{"description": "d", "input_schema": {"type": "object"}}],
    good: [{"name": "a", "description": "d", "input_schema": {"type": "object"}}]);

output_case!(shape_name_not_string, Target::GeminiParameters, "shape/name",
    bad: [{"functionDeclarations": [{"name": 7}]}],
    good: [{"functionDeclarations": [{"name": "seven"}]}]);

output_case!(shape_description_not_string, Target::OpenAiResponses, "shape/description",
    bad: [{"type": "function", "name": "a", "description": ["d"], "parameters": {"type": "object", "properties": {}}, "strict": false}],
    good: [{"type": "function", "name": "a", "description": "d", "parameters": {"type": "object", "properties": {}}, "strict": false}]);

output_case!(shape_schema_missing_parameters, Target::OpenAi, "shape/schema",
    bad: [{"type": "function", "function": {"name": "a"}}],
    good: [{"type": "function", "function": {"name": "a", "parameters": {"type": "object", "properties": {}}}}]);

output_case!(shape_schema_null_parameters, Target::OpenAi, "shape/schema",
    bad: [{"type": "function", "function": {"name": "a", "parameters": null}}],
    good: [{"type": "function", "function": {"name": "a", "parameters": {"type": "object", "properties": {}}}}]);

output_case!(shape_schema_bedrock_needs_json, Target::Bedrock, "shape/schema",
    bad: [{"toolSpec": {"name": "a", "inputSchema": {"type": "object"}}}],
    good: [{"toolSpec": {"name": "a", "inputSchema": {"json": {"type": "object"}}}}]);

output_case!(shape_schema_gemini_wrong_schema_field, Target::GeminiParameters, "shape/schema",
    bad: [{"functionDeclarations": [{"name": "a", "parametersJsonSchema": {"type": "object"}}]}],
    good: [{"functionDeclarations": [{"name": "a", "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}]}]);

output_case!(shape_schema_gemini_json_wrong_schema_field, Target::GeminiJsonSchema, "shape/schema",
    bad: [{"functionDeclarations": [{"name": "a", "parameters": {"type": "object"}}]}],
    good: [{"functionDeclarations": [{"name": "a", "parametersJsonSchema": {"type": "object"}}]}]);

output_case!(shape_strict_flag_required_in_responses, Target::OpenAiResponsesStrict, "shape/strict-flag",
    bad: [{"type": "function", "name": "a", "parameters": {"type": "object", "properties": {}}}],
    good: [{"type": "function", "name": "a", "parameters": {"type": "object", "properties": {}, "additionalProperties": false}, "strict": true}]);

output_case!(shape_strict_flag_must_be_bool, Target::OpenAiStrict, "shape/strict-flag",
    bad: [{"type": "function", "function": {"name": "a", "parameters": {"type": "object", "properties": {}}, "strict": "true"}}],
    good: [{"type": "function", "function": {"name": "a", "parameters": {"type": "object", "properties": {}, "additionalProperties": false}, "strict": true}}]);

// ---------------------------------------------------------------------------
// Everywhere
// ---------------------------------------------------------------------------

#[test]
fn common_duplicate_name_every_target() {
    for target in ALL_TARGETS {
        let schema = json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"], "additionalProperties": false});
        let schema = if matches!(target, Target::GeminiParameters | Target::Vertex) {
            json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]})
        } else {
            schema
        };
        let strict = is_strict(target);
        let bad = output(target, vec![entry(target, "same", schema.clone(), strict), entry(target, "same", schema.clone(), strict)]);
        let good = output(target, vec![entry(target, "same", schema.clone(), strict), entry(target, "other", schema, strict)]);
        assert_violates(target, &bad, "common/duplicate-name");
        assert_clean(target, &good);
    }
}

schema_case!(common_property_value_not_schema, Target::OpenAi, "common/property-value-not-schema",
    bad: {"type": "object", "properties": {"a": "string"}},
    good: {"type": "object", "properties": {"a": {"type": "string"}, "b": true}});

// §3 #38: `"type":"object"` written inside `properties` by mistake.
schema_case!(common_property_value_not_schema_misplaced_type, Target::Anthropic, "common/property-value-not-schema",
    bad: {"type": "object", "properties": {"type": "object"}},
    good: {"type": "object", "properties": {"type": {"type": "object"}}});

schema_case!(common_property_value_not_schema_bedrock_nested, Target::Bedrock, "common/property-value-not-schema",
    bad: {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "object", "properties": {"b": 5}}}}},
    good: {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "object", "properties": {"b": {}}}}}});

schema_case!(common_malformed_keyword_properties_array, Target::Anthropic, "common/malformed-keyword",
    bad: {"type": "object", "properties": {"a": {"type": "object", "properties": ["x"]}}},
    good: {"type": "object", "properties": {"a": {"type": "object", "properties": {"x": {}}}}});

schema_case!(common_malformed_keyword_required_string, Target::OpenAi, "common/malformed-keyword",
    bad: {"type": "object", "properties": {"a": {"type": "string"}}, "required": "a"},
    good: {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});

schema_case!(common_malformed_keyword_anyof_object, Target::GeminiJsonSchema, "common/malformed-keyword",
    bad: {"type": "object", "properties": {"a": {"anyOf": {"type": "string"}}}},
    good: {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}]}}});

// ---------------------------------------------------------------------------
// OpenAI (Chat and Responses)
// ---------------------------------------------------------------------------

#[test]
fn openai_name_pattern() {
    for target in [Target::OpenAi, Target::OpenAiResponses] {
        let schema = json!({"type": "object", "properties": {}});
        for bad in ["caldav-mcp.create-event", "has space", "", &"x".repeat(65), "ünï"] {
            assert_violates(target, &output(target, vec![entry(target, bad, schema.clone(), false)]), "openai/name");
        }
        for good in ["a", "mcp__srv__get-user_2", &"x".repeat(64)] {
            assert_clean(target, &output(target, vec![entry(target, good, schema.clone(), false)]));
        }
    }
}

#[test]
fn openai_tool_count() {
    for target in [Target::OpenAi, Target::OpenAiStrict, Target::OpenAiResponses, Target::OpenAiResponsesStrict] {
        let make = |n: usize| {
            output(target, (0..n).map(|i| entry(target, &format!("t{i}"), empty_strict_object(), is_strict(target))).collect())
        };
        assert_violates(target, &make(129), "openai/tool-count");
        assert_clean(target, &make(128));
    }
}

schema_case!(openai_root_type, Target::OpenAi, "openai/root-type",
    bad: {"type": "string", "properties": {}},
    good: {"type": "object", "properties": {}});

schema_case!(openai_root_type_missing, Target::OpenAiResponses, "openai/root-type",
    bad: {"properties": {"a": {"type": "string"}}},
    good: {"type": "object", "properties": {"a": {"type": "string"}}});

// §3 #34: FastMCP no-arg tools.
schema_case!(openai_root_properties, Target::OpenAi, "openai/root-properties",
    bad: {"type": "object"},
    good: {"type": "object", "properties": {}});

schema_case!(openai_root_combinator_anyof, Target::OpenAi, "openai/root-combinator",
    bad: {"type": "object", "properties": {"a": {"type": "string"}}, "anyOf": [{"required": ["a"]}]},
    good: {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}});

schema_case!(openai_root_combinator_enum, Target::OpenAiResponses, "openai/root-combinator",
    bad: {"type": "object", "properties": {}, "enum": [{}]},
    good: {"type": "object", "properties": {}});

schema_case!(openai_root_combinator_strict_root_anyof, Target::OpenAiStrict, "openai/root-combinator",
    bad: {"type": "object", "properties": {}, "additionalProperties": false, "anyOf": [{"type": "object"}]},
    good: {"type": "object", "properties": {}, "additionalProperties": false});

schema_case!(openai_array_items_nested_in_anyof, Target::OpenAi, "openai/array-items",
    bad: {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "array"}]}}},
    good: {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "array", "items": {}}]}}});

schema_case!(openai_array_items_type_array, Target::OpenAiStrict, "openai/array-items",
    bad: {"type": "object", "properties": {"a": {"type": ["array", "null"]}}, "required": ["a"], "additionalProperties": false},
    good: {"type": "object", "properties": {"a": {"type": ["array", "null"], "items": {"type": "string"}}}, "required": ["a"], "additionalProperties": false});

// ---------------------------------------------------------------------------
// OpenAI strict
// ---------------------------------------------------------------------------

schema_case!(openai_strict_additional_properties_nested, Target::OpenAiStrict, "openai-strict/additional-properties",
    bad: {"type": "object", "properties": {"o": {"type": "object", "properties": {}}}, "required": ["o"], "additionalProperties": false},
    good: {"type": "object", "properties": {"o": {"type": "object", "properties": {}, "additionalProperties": false}}, "required": ["o"], "additionalProperties": false});

schema_case!(openai_strict_additional_properties_open_map, Target::OpenAiResponsesStrict, "openai-strict/additional-properties",
    bad: {"type": "object", "properties": {}, "additionalProperties": {"type": "string"}},
    good: {"type": "object", "properties": {}, "additionalProperties": false});

schema_case!(openai_strict_required_missing_key, Target::OpenAiStrict, "openai-strict/required-all",
    bad: {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": ["string", "null"]}}, "required": ["a"], "additionalProperties": false},
    good: {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": ["string", "null"]}}, "required": ["a", "b"], "additionalProperties": false});

schema_case!(openai_strict_required_extra_key, Target::OpenAiStrict, "openai-strict/required-all",
    bad: {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "model"], "additionalProperties": false},
    good: {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false});

#[test]
fn openai_strict_unsupported_keywords() {
    for key in ["allOf", "oneOf"] {
        let mut node = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false});
        node["properties"]["a"] = json!({key: [{"type": "string"}]});
        assert_violates(Target::OpenAiStrict, &wrap(Target::OpenAiStrict, node), "openai-strict/unsupported-keyword");
    }
    for (key, value) in [
        ("not", json!({"type": "null"})),
        ("if", json!({"type": "string"})),
        ("then", json!({"type": "string"})),
        ("else", json!({"type": "string"})),
        ("dependentRequired", json!({"a": ["b"]})),
        ("dependentSchemas", json!({"a": {}})),
        ("patternProperties", json!({"^x": {"type": "string"}})),
    ] {
        let mut node = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false});
        node[key] = value;
        assert_violates(Target::OpenAiStrict, &wrap(Target::OpenAiStrict, node), "openai-strict/unsupported-keyword");
    }
    let good = json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}]}}, "required": ["a"], "additionalProperties": false});
    assert_clean(Target::OpenAiStrict, &wrap(Target::OpenAiStrict, good));
}

// §3 #40.
schema_case!(openai_strict_format, Target::OpenAiStrict, "openai-strict/format",
    bad: {"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}, "required": ["url"], "additionalProperties": false},
    good: {"type": "object", "properties": {"at": {"type": "string", "format": "date-time"}, "id": {"type": "string", "format": "uuid"}}, "required": ["at", "id"], "additionalProperties": false});

schema_case!(openai_strict_ref_siblings, Target::OpenAiStrict, "openai-strict/ref-siblings",
    bad: {"type": "object", "properties": {"a": {"$ref": "#/$defs/x", "title": "A"}}, "required": ["a"], "additionalProperties": false,
          "$defs": {"x": {"type": "string"}}},
    good: {"type": "object", "properties": {"a": {"$ref": "#/$defs/x", "description": "A"}, "r": {"$ref": "#"}}, "required": ["a", "r"], "additionalProperties": false,
           "$defs": {"x": {"type": "string"}}});

schema_case!(openai_strict_unresolved_ref, Target::OpenAiStrict, "openai-strict/unresolved-ref",
    bad: {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}, "required": ["a"], "additionalProperties": false,
          "$defs": {"x": {"type": "string"}}},
    good: {"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}, "r": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}}, "required": ["a", "r"],
           "additionalProperties": false, "$defs": {"x": {"type": "string"}}});

fn object_with_props(n: usize, required: bool) -> Value {
    let mut props = Map::new();
    for i in 0..n {
        props.insert(format!("p{i}"), json!({"type": "string"}));
    }
    let keys: Vec<Value> = props.keys().map(|k| json!(k)).collect();
    let mut schema = json!({"type": "object", "properties": props, "additionalProperties": false});
    if required {
        schema["required"] = Value::Array(keys);
    }
    schema
}

#[test]
fn openai_strict_limit_properties() {
    let t = Target::OpenAiStrict;
    assert_violates(t, &wrap(t, object_with_props(5001, true)), "openai-strict/limit-properties");
    assert_clean(t, &wrap(t, object_with_props(5000, true)));
}

/// `levels` nested objects, the root counting as level 1.
fn nested_objects(levels: usize) -> Value {
    let mut node = json!({"type": "object", "properties": {}, "additionalProperties": false});
    for _ in 1..levels {
        node = json!({"type": "object", "properties": {"c": node}, "required": ["c"], "additionalProperties": false});
    }
    node
}

#[test]
fn openai_strict_limit_nesting() {
    let t = Target::OpenAiStrict;
    assert_violates(t, &wrap(t, nested_objects(11)), "openai-strict/limit-nesting");
    assert_clean(t, &wrap(t, nested_objects(10)));
}

fn enum_schema(values: Vec<Value>) -> Value {
    json!({"type": "object", "properties": {"e": {"type": "string", "enum": values}}, "required": ["e"], "additionalProperties": false})
}

#[test]
fn openai_strict_limit_enum_values() {
    let t = Target::OpenAiResponsesStrict;
    // Split over two properties: the limit is per schema, not per enum.
    let make = |n: usize| {
        let half: Vec<Value> = (0..n / 2).map(|i| json!(format!("v{i}"))).collect();
        let rest: Vec<Value> = (0..n - n / 2).map(|i| json!(format!("w{i}"))).collect();
        json!({"type": "object", "properties": {"a": {"enum": half}, "b": {"enum": rest}}, "required": ["a", "b"], "additionalProperties": false})
    };
    assert_violates(t, &wrap(t, make(1001)), "openai-strict/limit-enum-values");
    assert_clean(t, &wrap(t, make(1000)));
}

#[test]
fn openai_strict_limit_string_size() {
    let t = Target::OpenAiStrict;
    let make = |len: usize| enum_schema((0..10).map(|i| json!(format!("{i}{}", "x".repeat(len - 1)))).collect());
    assert_violates(t, &wrap(t, make(12_001)), "openai-strict/limit-string-size");
    assert_clean(t, &wrap(t, make(11_000)));
}

#[test]
fn openai_strict_limit_large_enum() {
    let t = Target::OpenAiStrict;
    // 251 values: > 250, so the 15,000-char budget applies.
    let make = |len: usize| enum_schema((0..251).map(|i| json!(format!("{i:03}{}", "x".repeat(len - 3)))).collect());
    assert_violates(t, &wrap(t, make(60)), "openai-strict/limit-large-enum"); // 15,060 chars
    assert_clean(t, &wrap(t, make(59))); // 14,809 chars
}

/// A tool emitted with `strict:false` (fallback) gets the non-strict rules only.
#[test]
fn openai_strict_fallback_tool_uses_non_strict_rules() {
    let open = json!({"type": "object", "properties": {"url": {"type": "string", "format": "uri"}, "meta": {"type": "object", "additionalProperties": {"type": "string"}}}});
    for target in [Target::OpenAiStrict, Target::OpenAiResponsesStrict] {
        assert_clean(target, &output(target, vec![entry(target, "fallback", open.clone(), false)]));
        let strict_out = output(target, vec![entry(target, "strict_one", open.clone(), true)]);
        assert_violates(target, &strict_out, "openai-strict/required-all");
        assert_violates(target, &strict_out, "openai-strict/additional-properties");
        assert_violates(target, &strict_out, "openai-strict/format");
    }
}

// ---------------------------------------------------------------------------
// Anthropic
// ---------------------------------------------------------------------------

#[test]
fn anthropic_name_pattern() {
    let t = Target::Anthropic;
    let schema = json!({"type": "object"});
    for bad in ["fs.read", "a/b", "a b", "", &"x".repeat(65)] {
        assert_violates(t, &output(t, vec![entry(t, bad, schema.clone(), false)]), "anthropic/name");
    }
    for good in ["read_file", "mcp__fs__read-file", &"x".repeat(64)] {
        assert_clean(t, &output(t, vec![entry(t, good, schema.clone(), false)]));
    }
}

schema_case!(anthropic_root_type, Target::Anthropic, "anthropic/root-type",
    bad: {"properties": {"a": {"type": "string"}}},
    good: {"type": "object", "properties": {"a": {"type": "string"}}});

// §3 #45: "at least one of" root anyOf.
schema_case!(anthropic_root_combinator, Target::Anthropic, "anthropic/root-combinator",
    bad: {"type": "object", "properties": {"a": {}, "b": {}}, "anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
    good: {"type": "object", "properties": {"a": {}, "b": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}});

// "Property keys should match pattern '^[a-zA-Z0-9_.-]{1,64}$'", at the top level only.
schema_case!(anthropic_property_key, Target::Anthropic, "anthropic/property-key",
    bad: {"type": "object", "properties": {"$filter": {"type": "string"}}},
    good: {"type": "object", "properties": {"If-Match": {"type": "string"}, "odata.type": {}, "o": {"type": "object", "properties": {"$meta": {}}}}});

schema_case!(bedrock_property_key, Target::Bedrock, "bedrock/property-key",
    bad: {"type": "object", "properties": {"Account Number": {"type": "string"}}},
    good: {"type": "object", "properties": {"Account_Number": {"type": "string"}}});

// Non-strict Anthropic accepts nearly any JSON Schema.
schema_case!(anthropic_non_strict_is_permissive, Target::Anthropic, "anthropic/root-type",
    bad: {"type": "array"},
    good: {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 9}, "u": {"type": "string", "format": "uri"},
           "m": {"type": "object", "additionalProperties": {"type": "string"}}, "l": {"type": "array"}}});

// ---------------------------------------------------------------------------
// Anthropic strict
// ---------------------------------------------------------------------------

schema_case!(anthropic_strict_additional_properties, Target::AnthropicStrict, "anthropic-strict/additional-properties",
    bad: {"type": "object", "properties": {"o": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": false}}},
    good: {"type": "object", "properties": {"o": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": false}}, "additionalProperties": false});

#[test]
fn anthropic_strict_unsupported_keywords() {
    let t = Target::AnthropicStrict;
    for (key, value) in [
        ("minimum", json!(0)),
        ("maximum", json!(9)),
        ("exclusiveMinimum", json!(0)),
        ("exclusiveMaximum", json!(9)),
        ("multipleOf", json!(2)),
        ("minLength", json!(1)),
        ("maxLength", json!(5)),
        ("maxItems", json!(3)),
    ] {
        let mut schema = json!({"type": "object", "properties": {"a": {"type": "number"}}, "additionalProperties": false});
        schema["properties"]["a"][key] = value;
        assert_violates(t, &wrap(t, schema), "anthropic-strict/unsupported-keyword");
    }
    // Every keyword the subset does not list (s25e F1).
    for (key, value) in [("minProperties", json!(1)), ("propertyNames", json!({"pattern": "^a"})), ("dependentRequired", json!({"a": ["b"]})), ("contentEncoding", json!("base64"))] {
        let mut schema = json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false});
        schema["properties"]["a"][key] = value;
        assert_violates(t, &wrap(t, schema), "anthropic-strict/unsupported-keyword");
    }
    let good = json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "^[a-z]+$", "default": "x"}, "b": {"const": 1}},
                      "additionalProperties": false});
    assert_clean(t, &wrap(t, good));
}

#[test]
fn anthropic_strict_untyped() {
    let t = Target::AnthropicStrict;
    for a in [json!({}), json!({"description": "any"}), json!(true), json!({"enum": [{"k": 1}]}), json!({"const": [1]}), json!({"type": "array", "items": {}})] {
        let schema = json!({"type": "object", "properties": {"a": a}, "additionalProperties": false});
        assert_violates(t, &wrap(t, schema), "anthropic-strict/untyped");
    }
    // An `allOf` branch of annotations alone chooses nothing.
    let good = json!({"type": "object", "properties": {"a": {"allOf": [{"type": "string"}, {"description": "d"}]}, "e": {"enum": ["x", 1, null]}},
                      "additionalProperties": false});
    assert_clean(t, &wrap(t, good));
}

schema_case!(anthropic_strict_min_items, Target::AnthropicStrict, "anthropic-strict/min-items",
    bad: {"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string"}, "minItems": 2}}, "additionalProperties": false},
    good: {"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string"}, "minItems": 1}, "k": {"type": "array", "minItems": 0}}, "additionalProperties": false});

schema_case!(anthropic_strict_format, Target::AnthropicStrict, "anthropic-strict/format",
    bad: {"type": "object", "properties": {"b": {"type": "string", "format": "byte"}}, "additionalProperties": false},
    good: {"type": "object", "properties": {"u": {"type": "string", "format": "uri"}, "d": {"type": "string", "format": "date"}}, "additionalProperties": false});

schema_case!(anthropic_strict_recursive_ref_defs, Target::AnthropicStrict, "anthropic-strict/recursive-ref",
    bad: {"type": "object", "properties": {"root": {"$ref": "#/$defs/node"}}, "additionalProperties": false,
          "$defs": {"node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "additionalProperties": false}}},
    good: {"type": "object", "properties": {"root": {"$ref": "#/$defs/node"}}, "additionalProperties": false,
           "$defs": {"node": {"type": "object", "properties": {"leaf": {"$ref": "#/$defs/leaf"}}, "additionalProperties": false},
                     "leaf": {"type": "string"}}});

schema_case!(anthropic_strict_recursive_ref_root, Target::AnthropicStrict, "anthropic-strict/recursive-ref",
    bad: {"type": "object", "properties": {"child": {"$ref": "#"}}, "additionalProperties": false},
    good: {"type": "object", "properties": {"child": {"$ref": "#/properties/name"}, "name": {"type": "string"}}, "additionalProperties": false});

schema_case!(anthropic_strict_one_of, Target::AnthropicStrict, "anthropic-strict/one-of",
    bad: {"type": "object", "properties": {"u": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}, "additionalProperties": false},
    good: {"type": "object", "properties": {"u": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}, "additionalProperties": false});

schema_case!(anthropic_strict_unsatisfiable, Target::AnthropicStrict, "anthropic-strict/unsatisfiable",
    bad: {"type": "object", "properties": {"s": {"type": "object", "properties": {"k": {"type": "string"}}, "additionalProperties": false,
          "anyOf": [{"type": "object", "properties": {"r": {"type": "number"}}, "additionalProperties": false}]}}, "additionalProperties": false},
    good: {"type": "object", "properties": {"s": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "additionalProperties": false,
           "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}}, "additionalProperties": false});

#[test]
fn anthropic_strict_unsatisfiable_requires() {
    let t = Target::AnthropicStrict;
    let schema = json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false, "allOf": [{"anyOf": [{"required": ["z"]}]}]});
    assert_violates(t, &wrap(t, schema), "anthropic-strict/unsatisfiable");
}

schema_case!(bedrock_root_combinator, Target::Bedrock, "bedrock/root-combinator",
    bad: {"type": "object", "properties": {"a": {}, "b": {}}, "anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
    good: {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}]}}});

output_case!(bedrock_strict_false, Target::BedrockStrict, "bedrock/strict-false",
    bad: [{"toolSpec": {"name": "a", "inputSchema": {"json": {"type": "object", "properties": {}}}, "strict": false}}],
    good: [{"toolSpec": {"name": "a", "inputSchema": {"json": {"type": "object", "properties": {}}}}}]);

/// Bedrock's strict tools are held to Claude's subset and limits; its plain tools are not.
#[test]
fn bedrock_strict_is_claudes() {
    let t = Target::BedrockStrict;
    for (schema, rule) in [
        (json!({"type": "object", "properties": {"o": {"type": "object", "properties": {}}}, "additionalProperties": false}), "anthropic-strict/additional-properties"),
        (json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "additionalProperties": false}), "anthropic-strict/unsupported-keyword"),
        (json!({"type": "object", "properties": {"u": {"oneOf": [{"type": "string"}]}}, "additionalProperties": false}), "anthropic-strict/one-of"),
        (json!({"type": "object", "properties": {"b": {"type": "string", "format": "byte"}}, "additionalProperties": false}), "anthropic-strict/format"),
    ] {
        assert_violates(t, &wrap(t, schema.clone()), rule);
        // The same schema on a tool sent without strict is fine.
        assert_clean(t, &output(t, vec![entry(t, "t", schema, false)]));
    }
    let many = |n: usize| output(t, (0..n).map(|i| entry(t, &format!("s{i}"), empty_strict_object(), true)).collect());
    assert_violates(t, &many(21), "anthropic-strict/tool-count");
    assert_clean(t, &many(20));
    let optional = output(t, vec![entry(t, "a", optional_props("a", 13), true), entry(t, "b", optional_props("b", 12), true)]);
    assert_violates(t, &optional, "anthropic-strict/optional-params");
}

#[test]
fn anthropic_strict_tool_count() {
    let t = Target::AnthropicStrict;
    let make = |strict: usize, lax: usize| {
        let mut v: Vec<Value> = (0..strict).map(|i| entry(t, &format!("s{i}"), empty_strict_object(), true)).collect();
        v.extend((0..lax).map(|i| entry(t, &format!("l{i}"), json!({"type": "object"}), false)));
        output(t, v)
    };
    assert_violates(t, &make(21, 0), "anthropic-strict/tool-count");
    assert_clean(t, &make(20, 5));
}

/// `n` properties per tool, none required.
fn optional_props(prefix: &str, n: usize) -> Value {
    let props: Map<String, Value> = (0..n).map(|i| (format!("{prefix}{i}"), json!({"type": "string"}))).collect();
    json!({"type": "object", "properties": props, "additionalProperties": false})
}

#[test]
fn anthropic_strict_optional_params_across_tools() {
    let t = Target::AnthropicStrict;
    let make = |a: usize, b: usize| output(t, vec![entry(t, "a", optional_props("a", a), true), entry(t, "b", optional_props("b", b), true)]);
    assert_violates(t, &make(13, 12), "anthropic-strict/optional-params");
    assert_clean(t, &make(12, 12));
    // Non-strict tools do not count.
    let mixed = output(t, vec![entry(t, "a", optional_props("a", 24), true), entry(t, "b", optional_props("b", 30), false)]);
    assert_clean(t, &mixed);
}

/// `n` required properties per tool, each a union.
fn union_props(n: usize) -> Value {
    let props: Map<String, Value> = (0..n)
        .map(|i| {
            let s = if i % 2 == 0 { json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}) } else { json!({"type": ["string", "null"]}) };
            (format!("u{i}"), s)
        })
        .collect();
    let req: Vec<Value> = props.keys().map(|k| json!(k)).collect();
    json!({"type": "object", "properties": props, "required": req, "additionalProperties": false})
}

#[test]
fn anthropic_strict_union_params_across_tools() {
    let t = Target::AnthropicStrict;
    let make = |a: usize, b: usize| output(t, vec![entry(t, "a", union_props(a), true), entry(t, "b", union_props(b), true)]);
    assert_violates(t, &make(9, 8), "anthropic-strict/union-params");
    assert_clean(t, &make(8, 8));
}

// ---------------------------------------------------------------------------
// Gemini `parameters` / Vertex
// ---------------------------------------------------------------------------

#[test]
fn gemini_name_pattern() {
    for t in [Target::GeminiParameters, Target::GeminiJsonSchema, Target::Vertex] {
        for bad in ["1abc", "GitLab server__x", "-a", "", &format!("a{}", "b".repeat(64)), "a/b"] {
            assert_violates(t, &json!([{"functionDeclarations": [{"name": bad}]}]), "gemini/name");
        }
        for good in ["_a", "a.b:c-d_e", "mcp__fs__read", &format!("a{}", "b".repeat(63))] {
            assert_clean(t, &json!([{"functionDeclarations": [{"name": good}]}]));
        }
    }
}

#[test]
fn gemini_declaration_count() {
    for t in [Target::GeminiParameters, Target::GeminiJsonSchema, Target::Vertex] {
        let make = |n: usize| json!([{"functionDeclarations": (0..n).map(|i| json!({"name": format!("f{i}")})).collect::<Vec<_>>()}]);
        assert_violates(t, &make(513), "gemini/declaration-count");
        assert_clean(t, &make(512));
    }
}

// §3 #25: root anyOf without type OBJECT.
schema_case!(gemini_root_type, Target::Vertex, "gemini/root-type",
    bad: {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}]},
    good: {"type": "OBJECT", "properties": {"a": {"type": "string"}}});

#[test]
fn gemini_unknown_key() {
    let t = Target::GeminiParameters;
    for (key, value) in [
        ("additionalProperties", json!(false)),
        ("$schema", json!("http://json-schema.org/draft-07/schema#")),
        ("const", json!("x")),
        ("x-mcp-header", json!("X-Foo")),
        ("uniqueItems", json!(true)),
        ("exclusiveMinimum", json!(0)),
        ("$ref", json!("#/$defs/a")),
        ("oneOf", json!([{"type": "string"}])),
    ] {
        let mut schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        schema["properties"]["a"][key] = value;
        assert_violates(t, &wrap(t, schema), "gemini/unknown-key");
    }
    let good = json!({"type": "object", "properties": {"a": {"type": "string", "title": "A", "minLength": 1, "maxLength": 9, "pattern": "^a", "example": "a", "default": "a"},
                      "n": {"type": "integer", "minimum": 0, "maximum": 9}, "o": {"type": "object", "minProperties": 1, "maxProperties": 2, "properties": {"z": {"type": "string"}}},
                      "l": {"type": "array", "minItems": 0, "maxItems": 3, "items": {"type": "boolean"}}},
                      "required": ["a"], "propertyOrdering": ["a", "n", "o", "l"]});
    assert_clean(t, &wrap(t, good));
}

#[test]
fn gemini_type() {
    let t = Target::GeminiParameters;
    for bad in [json!(["string", "null"]), json!("null"), json!("NULL"), json!("TYPE_UNSPECIFIED"), json!("text"), json!(7)] {
        let schema = json!({"type": "object", "properties": {"a": {"type": bad}}});
        assert_violates(t, &wrap(t, schema), "gemini/type");
    }
    for good in ["string", "STRING", "number", "NUMBER", "integer", "boolean", "BOOLEAN"] {
        let schema = json!({"type": "object", "properties": {"a": {"type": good}}});
        assert_clean(t, &wrap(t, schema));
    }
}

schema_case!(gemini_enum_not_string, Target::GeminiParameters, "gemini/enum-not-string",
    bad: {"type": "object", "properties": {"base": {"type": "string", "enum": [2, 8, 10, 16]}}},
    good: {"type": "object", "properties": {"base": {"type": "string", "enum": ["2", "8", "10", "16"]}}});

#[test]
fn gemini_enum_type() {
    let t = Target::GeminiParameters;
    for bad in [json!({"type": "integer", "enum": ["1", "2"]}), json!({"anyOf": [{"type": "string"}], "enum": ["a"]}), json!({"enum": ["a"]})] {
        assert_violates(t, &wrap(t, json!({"type": "object", "properties": {"a": bad}})), "gemini/enum-type");
    }
    assert_clean(t, &wrap(t, json!({"type": "object", "properties": {"a": {"type": "STRING", "enum": ["x"]}}})));
}

#[test]
fn gemini_format() {
    let t = Target::Vertex;
    for bad in [
        json!({"type": "string", "format": "uri"}),
        json!({"type": "string", "format": "email"}),
        json!({"type": "integer", "format": "float"}),
        json!({"type": "number", "format": "int32"}),
        json!({"type": "boolean", "format": "enum"}),
    ] {
        assert_violates(t, &wrap(t, json!({"type": "object", "properties": {"a": bad}})), "gemini/format");
    }
    let good = json!({"type": "object", "properties": {
        "s": {"type": "string", "format": "date-time"}, "e": {"type": "string", "format": "enum", "enum": ["a"]},
        "f": {"type": "number", "format": "float"}, "d": {"type": "NUMBER", "format": "double"},
        "i": {"type": "integer", "format": "int32"}, "j": {"type": "INTEGER", "format": "int64"}}});
    assert_clean(t, &wrap(t, good));
}

// §3 #15: Notion MCP.
schema_case!(gemini_properties_non_object, Target::GeminiParameters, "gemini/properties-non-object",
    bad: {"type": "object", "properties": {"a": {"type": "string", "properties": {"x": {"type": "string"}}, "required": ["x"]}}},
    good: {"type": "object", "properties": {"a": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}});

// §3 #16.
schema_case!(gemini_required_undefined, Target::GeminiParameters, "gemini/required-undefined",
    bad: {"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt", "model"]},
    good: {"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]});

// §3 #13.
schema_case!(gemini_empty_properties, Target::GeminiParameters, "gemini/empty-properties",
    bad: {"type": "object", "properties": {"opts": {"type": "object", "properties": {}}}},
    good: {"type": "object", "properties": {"opts": {"type": "object"}}});

output_case!(gemini_empty_properties_root, Target::Vertex, "gemini/empty-properties",
    bad: [{"functionDeclarations": [{"name": "noop", "parameters": {"type": "object", "properties": {}}}]}],
    good: [{"functionDeclarations": [{"name": "noop"}]}]);

// §3 #28.
schema_case!(gemini_boolean_schema, Target::GeminiParameters, "gemini/boolean-schema",
    bad: {"type": "object", "properties": {"any": true}},
    good: {"type": "object", "properties": {"any": {"type": "string", "description": "any JSON, serialised"}}});

schema_case!(gemini_boolean_schema_items, Target::Vertex, "gemini/boolean-schema",
    bad: {"type": "object", "properties": {"l": {"type": "array", "items": true}}},
    good: {"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string"}}}});

// §3 #31.
schema_case!(gemini_type_and_anyof, Target::GeminiParameters, "gemini/type-and-anyof",
    bad: {"type": "object", "properties": {"a": {"type": "string", "anyOf": [{"type": "string"}, {"type": "integer"}]}}},
    good: {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}});

// §3 #23.
schema_case!(gemini_anyof_null_branch, Target::GeminiParameters, "gemini/anyof-null-branch",
    bad: {"type": "object", "properties": {"a": {"anyOf": [{"type": "null"}, {"type": "string"}]}}},
    good: {"type": "object", "properties": {"a": {"anyOf": [{"type": "string", "nullable": true}]}}});

schema_case!(gemini_untyped_node, Target::GeminiParameters, "gemini/untyped-node",
    bad: {"type": "object", "properties": {"a": {"description": "anything"}}},
    good: {"type": "object", "properties": {"a": {"type": "string", "description": "anything"}}});

// §3 #7: nested items.items.
schema_case!(gemini_array_items_nested, Target::GeminiParameters, "gemini/array-items",
    bad: {"type": "object", "properties": {"parts": {"type": "array", "items": {"type": "array"}}}},
    good: {"type": "object", "properties": {"parts": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}}}});

// §3 #8: inside an anyOf branch.
schema_case!(gemini_array_items_in_anyof, Target::Vertex, "gemini/array-items",
    bad: {"type": "object", "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "ARRAY"}]}}},
    good: {"type": "object", "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "ARRAY", "items": {"type": "string"}}]}}});

// §3 #22: the official git MCP server's optional params.
schema_case!(vertex_anyof_siblings, Target::Vertex, "vertex/anyof-siblings",
    bad: {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}], "title": "A", "default": "x"}}},
    good: {"type": "object", "properties": {"a": {"anyOf": [{"type": "string", "title": "A"}, {"type": "integer"}]}}});

/// The same anyOf-with-siblings node is fine for the Gemini Developer API.
#[test]
fn gemini_developer_api_allows_anyof_siblings() {
    let schema = json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "A"}}});
    assert_clean(Target::GeminiParameters, &wrap(Target::GeminiParameters, schema.clone()));
    assert_violates(Target::Vertex, &wrap(Target::Vertex, schema), "vertex/anyof-siblings");
}

// ---------------------------------------------------------------------------
// Gemini `parametersJsonSchema`
// ---------------------------------------------------------------------------

schema_case!(gemini_json_root_type, Target::GeminiJsonSchema, "gemini-json/root-type",
    bad: {"anyOf": [{"type": "object"}]},
    good: {"type": "object"});

schema_case!(gemini_json_root_false, Target::GeminiJsonSchema, "gemini-json/root-false",
    bad: false,
    good: {"type": "object", "properties": {}, "additionalProperties": false});

// §3 #20.
schema_case!(gemini_json_unresolved_ref, Target::GeminiJsonSchema, "gemini-json/unresolved-ref",
    bad: {"type": "object", "properties": {"target": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/Target"}]}}},
    good: {"type": "object", "properties": {"target": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/Target"}]}},
           "$defs": {"Target": {"type": "object", "properties": {"id": {"type": "string"}}}}});

#[test]
fn gemini_json_ref_resolution_forms() {
    let t = Target::GeminiJsonSchema;
    // Arbitrary local pointers, "#", escaped tokens and $anchor resolve.
    let good = json!({"type": "object",
        "properties": {"headers": {"type": "object"}, "a/b": {"type": "string"},
                       "h2": {"$ref": "#/properties/headers"}, "self": {"$ref": "#"}, "esc": {"$ref": "#/properties/a~1b"},
                       "anch": {"$ref": "#thing"}, "items0": {"$ref": "#/$defs/tuple/prefixItems/0"}},
        "$defs": {"thing": {"$anchor": "thing", "type": "string"}, "tuple": {"type": "array", "prefixItems": [{"type": "string"}]}}});
    assert_clean(t, &wrap(t, good));
    for bad in ["#/properties/nope", "#nope", "other.json#/a", "#/required", "#/$defs/tuple/prefixItems/3"] {
        let schema = json!({"type": "object", "properties": {"x": {"$ref": bad}}, "required": ["x"], "$defs": {"tuple": {"prefixItems": [{}]}}});
        assert_violates(t, &wrap(t, schema), "gemini-json/unresolved-ref");
    }
}

// §3 #19.
schema_case!(gemini_json_ref_siblings, Target::GeminiJsonSchema, "gemini-json/ref-siblings",
    bad: {"type": "object", "properties": {"q": {"$ref": "#/$defs/QuestionOption", "title": "Q", "nullable": true}},
          "$defs": {"QuestionOption": {"type": "string"}}},
    good: {"type": "object", "properties": {"q": {"$ref": "#/$defs/QuestionOption", "description": "Q", "default": "a"}},
           "$defs": {"QuestionOption": {"type": "string"}}});

/// parametersJsonSchema accepts what `parameters` rejects (§1.4b recording).
#[test]
fn gemini_json_accepts_full_json_schema() {
    let schema = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "properties": {"v": {"type": ["string", "number", "null"]}, "c": {"const": 3}, "u": {"type": "string", "format": "uri"}},
        "additionalProperties": false});
    assert_clean(Target::GeminiJsonSchema, &wrap(Target::GeminiJsonSchema, schema.clone()));
    let rules: Vec<String> = validate(Target::GeminiParameters, &wrap(Target::GeminiParameters, schema)).into_iter().map(|v| v.rule).collect();
    for rule in ["gemini/unknown-key", "gemini/type", "gemini/format", "gemini/untyped-node"] {
        assert!(rules.iter().any(|r| r == rule), "missing {rule} in {rules:?}");
    }
}

// ---------------------------------------------------------------------------
// Bedrock
// ---------------------------------------------------------------------------

#[test]
fn bedrock_name_pattern() {
    let t = Target::Bedrock;
    for bad in ["GitLab communication server", "a.b", "", &"x".repeat(65)] {
        assert_violates(t, &output(t, vec![entry(t, bad, json!({"type": "object"}), false)]), "bedrock/name");
    }
    assert_clean(t, &output(t, vec![entry(t, "get_user-2", json!({"type": "object"}), false)]));
}

// §3 #52.
schema_case!(bedrock_root_type, Target::Bedrock, "bedrock/root-type",
    bad: {"anyOf": [{"type": "object"}]},
    good: {"type": "object", "required": ["a"], "properties": {"a": {}}});

// §3 #51.
output_case!(bedrock_empty_description, Target::Bedrock, "bedrock/empty-description",
    bad: [{"toolSpec": {"name": "a", "description": "", "inputSchema": {"json": {"type": "object"}}}}],
    good: [{"toolSpec": {"name": "a", "inputSchema": {"json": {"type": "object"}}}}]);

// ---------------------------------------------------------------------------
// Keywords used as property NAMES are never treated as keywords (§5.1)
// ---------------------------------------------------------------------------

/// Property names that are also JSON Schema keywords.
const KEYWORD_NAMES: [&str; 14] = [
    "type", "format", "$ref", "properties", "if", "then", "enum", "items", "anyOf", "oneOf", "not", "minimum", "additionalProperties", "required",
];

/// Object schema whose property names are all keywords (strict-compatible).
fn keyword_named_schema(gemini: bool) -> Value {
    let mut props = Map::new();
    for name in KEYWORD_NAMES {
        props.insert(name.to_string(), json!({"type": "string", "description": format!("a property called {name}")}));
    }
    // A nested object property literally named `properties`, itself holding `if` and `$ref`.
    let mut inner = json!({"type": "object", "properties": {"if": {"type": "string"}, "$ref": {"type": "string"}}, "required": ["if", "$ref"]});
    if !gemini {
        inner["additionalProperties"] = json!(false);
    }
    props.insert("properties".to_string(), inner);
    let required: Vec<Value> = props.keys().map(|k| json!(k)).collect();
    let mut schema = json!({"type": "object", "properties": props, "required": required});
    if !gemini {
        schema["additionalProperties"] = json!(false);
    }
    schema
}

#[test]
fn keyword_named_properties_are_not_keywords_for_any_target() {
    for target in ALL_TARGETS {
        let gemini_params = matches!(target, Target::GeminiParameters | Target::Vertex);
        let mut schema = keyword_named_schema(gemini_params);
        // Claude refuses a top-level key with `$` (`anthropic/property-key`); the nested `$ref`
        // property stays.
        if matches!(target, Target::Anthropic | Target::AnthropicStrict | Target::Bedrock | Target::BedrockStrict) {
            schema["properties"].as_object_mut().unwrap().remove("$ref");
            schema["required"].as_array_mut().unwrap().retain(|r| r != "$ref");
        }
        assert_clean(target, &wrap(target, schema));
    }
}

/// A property named `type` whose schema is an array-typed node is still checked:
/// the walker descends into it as a schema.
#[test]
fn keyword_named_property_values_are_still_validated() {
    let schema = json!({"type": "object", "properties": {"type": {"type": "array"}}});
    let v = validate(Target::OpenAi, &wrap(Target::OpenAi, schema));
    assert_eq!(v.len(), 1, "{v:#?}");
    assert_eq!(v[0].rule, "openai/array-items");
    assert_eq!(v[0].path, "/properties/type");
}

/// Data positions (`default`, `enum`, `examples`, `const`) are never walked.
#[test]
fn data_keywords_are_not_walked() {
    let schema = json!({"type": "object", "properties": {
        "a": {"type": "object", "properties": {}, "default": {"type": "array", "$ref": "#/nope", "properties": 5}},
        "b": {"examples": [{"type": "array", "format": "uri"}], "const": {"allOf": []}}
    }});
    for target in [Target::OpenAi, Target::Anthropic, Target::GeminiJsonSchema, Target::Bedrock] {
        assert_clean(target, &wrap(target, schema.clone()));
    }
}

/// Violation paths are JSON pointers with RFC 6901 escaping.
#[test]
fn violation_paths_are_escaped_json_pointers() {
    let schema = json!({"type": "object", "properties": {"a/b~c": {"type": "object", "properties": {"l": {"type": "array"}}}}});
    let v = validate(Target::OpenAi, &wrap(Target::OpenAi, schema));
    assert_eq!(v.len(), 1, "{v:#?}");
    assert_eq!(v[0].path, "/properties/a~1b~0c/properties/l");
    assert_eq!(v[0].tool, "t");
}
