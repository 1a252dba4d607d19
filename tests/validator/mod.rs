#![allow(dead_code)]
#![allow(unreachable_pub)]
//! Independent provider-constraint validator, used only by the test suite.
//!
//! Written from the documented provider rules in `docs/providers.md`
//! (§1.1–§1.8 and the failure catalogue §3), NOT from the converter's code,
//! so that it can act as an oracle for the converter's output.
//!
//! Entry point: [`validate`]. Given the whole provider value the converter
//! returns for one [`Target`], it returns every [`Violation`] of a rule the
//! provider's API (or its official client) is documented to reject. Every
//! rule has a stable, separately named id (`family/rule`), listed in
//! [`rules`]; the comment next to each cites the providers.md row it comes
//! from.
//!
//! Strict rules (OpenAI strict, Anthropic strict) apply to exactly the tools
//! emitted with `strict: true`, whatever the target: that is what the API
//! does. A tool emitted with `strict: false` (fallback) gets the non-strict
//! rules only.
//!
//! Schemas are inspected with a *structural* walker ([`walk`]) that only
//! descends into positions that hold subschemas (`properties` map values,
//! `items`, `anyOf` elements, …). Keys of a `properties` map are property
//! NAMES, never keywords, so a property called `type`, `format`, `$ref`,
//! `properties` or `if` is never mistaken for the keyword (providers.md §5.1).

use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashSet};

/// The provider format a converted output is meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// OpenAI Chat Completions, non-strict (§1.1).
    OpenAi,
    /// OpenAI Chat Completions with `strict: true` where possible (§1.1).
    OpenAiStrict,
    /// OpenAI Responses API, non-strict (§1.2).
    OpenAiResponses,
    /// OpenAI Responses API, strict where possible (§1.2).
    OpenAiResponsesStrict,
    /// Anthropic Messages (§1.3).
    Anthropic,
    /// Anthropic Messages with strict tool use where possible (§1.3).
    AnthropicStrict,
    /// Gemini Developer API, OpenAPI-subset `parameters` (§1.4a).
    GeminiParameters,
    /// Gemini `parametersJsonSchema` (§1.4b).
    GeminiJsonSchema,
    /// Vertex AI `parameters` (§1.4a plus the Vertex-only rows).
    Vertex,
    /// AWS Bedrock Converse (§1.5).
    Bedrock,
    /// AWS Bedrock Converse with strict tool use where possible: Claude's strict subset and
    /// limits, as for Anthropic (§1.3 strict; AWS, "Structured outputs").
    BedrockStrict,
}

/// One thing the provider would reject.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// Tool name (or `#<index>` when the name is missing); `""` for
    /// output-level rules (tool counts, aggregate limits, output shape).
    pub tool: String,
    /// JSON pointer inside the tool's schema; `""` = the schema root (also
    /// used for rules about the tool entry itself, e.g. its name).
    pub path: String,
    /// Stable rule id, e.g. `gemini/unknown-key`.
    pub rule: String,
    /// Human-readable explanation.
    pub message: String,
}

/// Stable rule ids. Tests match on these strings.
pub mod rules {
    // ---- output / tool-entry shape (the converter's documented output shapes) ----
    /// Output is not the documented top-level shape (array; Gemini: one element).
    pub const SHAPE_OUTPUT: &str = "shape/output";
    /// Tool entry is not an object, lacks its wrapper (`function`, `toolSpec`)
    /// or has the wrong `type` discriminator.
    pub const SHAPE_TOOL: &str = "shape/tool";
    /// A field the provider does not define appears on a tool entry.
    pub const SHAPE_UNKNOWN_FIELD: &str = "shape/unknown-field";
    /// `name` missing or not a string.
    pub const SHAPE_NAME: &str = "shape/name";
    /// `description` present but not a string.
    pub const SHAPE_DESCRIPTION: &str = "shape/description";
    /// Schema field missing / not a JSON object / wrong schema field for the mode.
    pub const SHAPE_SCHEMA: &str = "shape/schema";
    /// `strict` not a boolean (or missing where required: Responses).
    pub const SHAPE_STRICT_FLAG: &str = "shape/strict-flag";

    // ---- everywhere ----
    /// Two tools with the same name (§3 #54, #55).
    pub const DUPLICATE_NAME: &str = "common/duplicate-name";
    /// A value inside `properties` is not an object or boolean schema (§1.1, §3 #38).
    pub const PROPERTY_VALUE_NOT_SCHEMA: &str = "common/property-value-not-schema";
    /// A subschema-holding keyword has a value of the wrong JSON type
    /// (`properties` not a map, `anyOf` not an array, `required` not string[] …).
    pub const MALFORMED_KEYWORD: &str = "common/malformed-keyword";

    // ---- OpenAI (Chat + Responses) ----
    /// Name must match `^[a-zA-Z0-9_-]{1,64}$` (§1.1, §3 #32, #33).
    pub const OPENAI_NAME: &str = "openai/name";
    /// More than 128 tools (§1.1 "Tool-count", §1.8 max tools).
    pub const OPENAI_TOOL_COUNT: &str = "openai/tool-count";
    /// Root `type` must be `"object"` (§1.1, §3 #35, #37).
    pub const OPENAI_ROOT_TYPE: &str = "openai/root-type";
    /// Root must have a `properties` object (§1.1, §3 #34).
    pub const OPENAI_ROOT_PROPERTIES: &str = "openai/root-properties";
    /// No `oneOf/anyOf/allOf/enum/not` at the root (§1.1, §3 #37; strict: "root not anyOf").
    pub const OPENAI_ROOT_COMBINATOR: &str = "openai/root-combinator";
    /// `type: "array"` without `items` (§1.1, §3 #36).
    pub const OPENAI_ARRAY_ITEMS: &str = "openai/array-items";

    // ---- OpenAI strict (tools sent with strict: true) ----
    /// Every object needs `additionalProperties: false` (§1.1 strict).
    pub const OPENAI_STRICT_ADDITIONAL_PROPERTIES: &str = "openai-strict/additional-properties";
    /// `required` must list exactly every key of `properties` (§1.1 strict, §3 #39).
    pub const OPENAI_STRICT_REQUIRED_ALL: &str = "openai-strict/required-all";
    /// Unsupported keyword (allOf, not, if/then/else, dependent*, patternProperties, oneOf) (§1.1 strict).
    pub const OPENAI_STRICT_UNSUPPORTED_KEYWORD: &str = "openai-strict/unsupported-keyword";
    /// `format` outside the strict allow-list (§1.1 strict, §3 #40).
    pub const OPENAI_STRICT_FORMAT: &str = "openai-strict/format";
    /// `$ref` with sibling keywords other than `description` (§1.1 strict).
    pub const OPENAI_STRICT_REF_SIBLINGS: &str = "openai-strict/ref-siblings";
    /// `$ref` whose target is not a schema in this document (§1.1 strict: `$defs`/`$ref`).
    pub const OPENAI_STRICT_UNRESOLVED_REF: &str = "openai-strict/unresolved-ref";
    /// > 5,000 object properties in one schema (§1.1 strict limits).
    pub const OPENAI_STRICT_LIMIT_PROPERTIES: &str = "openai-strict/limit-properties";
    /// > 10 nesting levels of objects (§1.1 strict limits).
    pub const OPENAI_STRICT_LIMIT_NESTING: &str = "openai-strict/limit-nesting";
    /// > 1,000 enum values in one schema (§1.1 strict limits, §3 #42).
    pub const OPENAI_STRICT_LIMIT_ENUM_VALUES: &str = "openai-strict/limit-enum-values";
    /// > 120,000 chars over property/definition names + enum/const string values (§1.1 strict limits).
    pub const OPENAI_STRICT_LIMIT_STRING_SIZE: &str = "openai-strict/limit-string-size";
    /// A single string enum with > 250 values totalling > 15,000 chars (§1.1 strict limits).
    pub const OPENAI_STRICT_LIMIT_LARGE_ENUM: &str = "openai-strict/limit-large-enum";

    // ---- Anthropic ----
    /// Name must match `^[a-zA-Z0-9_-]{1,64}$` (§1.3 "Target 64", §3 #43, #44).
    pub const ANTHROPIC_NAME: &str = "anthropic/name";
    /// `input_schema.type` must be `"object"` (§1.3).
    pub const ANTHROPIC_ROOT_TYPE: &str = "anthropic/root-type";
    /// No top-level `anyOf/oneOf/allOf` (§1.3, §3 #45).
    pub const ANTHROPIC_ROOT_COMBINATOR: &str = "anthropic/root-combinator";
    /// Top-level property keys match `^[a-zA-Z0-9_.-]{1,64}$`: "tools.N.custom.input_schema.properties:
    /// Property keys should match pattern '^[a-zA-Z0-9_.-]{1,64}$'" fails the whole request
    /// (anthropics/claude-code#79418, composio#3500). Only the top level is checked (IDP#709).
    pub const ANTHROPIC_PROPERTY_KEY: &str = "anthropic/property-key";

    // ---- Anthropic strict (tools sent with strict: true) ----
    /// Every object needs `additionalProperties: false` (§1.3 strict).
    pub const ANTHROPIC_STRICT_ADDITIONAL_PROPERTIES: &str = "anthropic-strict/additional-properties";
    /// A keyword outside the strict subset: minimum/maximum/exclusive*/multipleOf/minLength/
    /// maxLength/maxItems, and every other one the subset does not list (§1.3 strict; the
    /// Anthropic SDK's `transformJSONSchema` keeps only the subset).
    pub const ANTHROPIC_STRICT_UNSUPPORTED_KEYWORD: &str = "anthropic-strict/unsupported-keyword";
    /// A property, items or `anyOf` branch with nothing but annotations (`{}`, a description:
    /// no type), a `true` subschema, or an `enum`/`const` of objects or arrays: the SDK's strict
    /// transform throws for each (§1.3 strict "enum (primitives only)").
    pub const ANTHROPIC_STRICT_UNTYPED: &str = "anthropic-strict/untyped";
    /// `minItems` other than 0 or 1 (§1.3 strict).
    pub const ANTHROPIC_STRICT_MIN_ITEMS: &str = "anthropic-strict/min-items";
    /// `format` outside the strict allow-list (§1.3 strict).
    pub const ANTHROPIC_STRICT_FORMAT: &str = "anthropic-strict/format";
    /// `oneOf` (not in the strict subset, which lists `anyOf` and `allOf`; on Bedrock:
    /// "Schema type 'oneOf' is not supported").
    pub const ANTHROPIC_STRICT_ONE_OF: &str = "anthropic-strict/one-of";
    /// A closed object (`additionalProperties: false`) whose `anyOf`/`oneOf`/`allOf` branch is an
    /// object of its own, or requires a property the object does not declare: no value can
    /// satisfy both, so the model cannot produce a valid call (§1.3 strict).
    pub const ANTHROPIC_STRICT_UNSATISFIABLE: &str = "anthropic-strict/unsatisfiable";
    /// Recursive `$ref` (§1.3 strict "unsupported: recursive schemas", §3 #21).
    pub const ANTHROPIC_STRICT_RECURSIVE_REF: &str = "anthropic-strict/recursive-ref";
    /// > 20 strict tools in one request (§1.3 strict limits, §3 #47).
    pub const ANTHROPIC_STRICT_TOOL_COUNT: &str = "anthropic-strict/tool-count";
    /// > 24 optional params across all strict tools (§1.3 strict limits, §3 #47).
    pub const ANTHROPIC_STRICT_OPTIONAL_PARAMS: &str = "anthropic-strict/optional-params";
    /// > 16 params using anyOf / type arrays across all strict tools (§1.3 strict limits).
    pub const ANTHROPIC_STRICT_UNION_PARAMS: &str = "anthropic-strict/union-params";

    // ---- Gemini `parameters` (and Vertex) ----
    /// Name must match `^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$` (§1.4, §3 #29).
    pub const GEMINI_NAME: &str = "gemini/name";
    /// > 512 function declarations (§1.4 "Number of declarations").
    pub const GEMINI_DECLARATION_COUNT: &str = "gemini/declaration-count";
    /// Root `parameters` must be of type OBJECT (§1.4a, §3 #25).
    pub const GEMINI_ROOT_TYPE: &str = "gemini/root-type";
    /// Key outside the `Schema` allow-list (§1.4a, §3 #1, #2, #5, #17, #26, #27, #56).
    pub const GEMINI_UNKNOWN_KEY: &str = "gemini/unknown-key";
    /// `type` not a single allowed type name (type arrays, "null", …) (§1.4a, §3 #3, #4, #23).
    pub const GEMINI_TYPE: &str = "gemini/type";
    /// Non-string `enum` value (§1.4a, §3 #9, #10).
    pub const GEMINI_ENUM_NOT_STRING: &str = "gemini/enum-not-string";
    /// `enum` on a node whose type is not string (§1.4a, §3 #11).
    pub const GEMINI_ENUM_TYPE: &str = "gemini/enum-type";
    /// `format` not allowed for the node's type (§1.4a, §3 #12).
    pub const GEMINI_FORMAT: &str = "gemini/format";
    /// `properties`/`required` on a non-object node (§1.4a, §3 #15).
    pub const GEMINI_PROPERTIES_NON_OBJECT: &str = "gemini/properties-non-object";
    /// `required` names a key missing from `properties` (§1.4a, §3 #14, #16).
    pub const GEMINI_REQUIRED_UNDEFINED: &str = "gemini/required-undefined";
    /// `properties: {}` (§1.4a, §3 #13).
    pub const GEMINI_EMPTY_PROPERTIES: &str = "gemini/empty-properties";
    /// Boolean subschema (§1.4a, §3 #28).
    pub const GEMINI_BOOLEAN_SCHEMA: &str = "gemini/boolean-schema";
    /// Node with both `type` and `anyOf` (§1.4a client side, §3 #31).
    pub const GEMINI_TYPE_AND_ANYOF: &str = "gemini/type-and-anyof";
    /// `anyOf` branch `{type: "null"}` (§1.4a, §3 #23).
    pub const GEMINI_ANYOF_NULL_BRANCH: &str = "gemini/anyof-null-branch";
    /// Node with neither `type` nor `anyOf` (§1.4a, §3 #11 "enum without type").
    pub const GEMINI_UNTYPED_NODE: &str = "gemini/untyped-node";
    /// `type: array` without `items` (§1.4a, §3 #6, #7, #8).
    pub const GEMINI_ARRAY_ITEMS: &str = "gemini/array-items";
    /// Vertex: a node with `anyOf` must have no other keys (§1.4a, §3 #22).
    pub const VERTEX_ANYOF_SIBLINGS: &str = "vertex/anyof-siblings";

    // ---- Gemini `parametersJsonSchema` ----
    /// Root must be an object schema with `type: "object"` (§1.4b, §1.8 root schema).
    pub const GEMINI_JSON_ROOT_TYPE: &str = "gemini-json/root-type";
    /// Root is the boolean schema `false`.
    pub const GEMINI_JSON_ROOT_FALSE: &str = "gemini-json/root-false";
    /// `$ref` whose target does not exist (§1.4b, §3 #20).
    pub const GEMINI_JSON_UNRESOLVED_REF: &str = "gemini-json/unresolved-ref";
    /// `$ref` with siblings other than description/default (§1.4b, §3 #19).
    pub const GEMINI_JSON_REF_SIBLINGS: &str = "gemini-json/ref-siblings";

    // ---- Bedrock ----
    /// Name must match `^[a-zA-Z0-9_-]{1,64}$` (§1.5, §3 #51).
    pub const BEDROCK_NAME: &str = "bedrock/name";
    /// `inputSchema.json.type` must be `"object"` (§1.5, §3 #52).
    pub const BEDROCK_ROOT_TYPE: &str = "bedrock/root-type";
    /// `description` present but empty (§1.5, §3 #51).
    pub const BEDROCK_EMPTY_DESCRIPTION: &str = "bedrock/empty-description";
    /// No top-level `anyOf/oneOf/allOf` (Claude on Bedrock: "input_schema does not support oneOf,
    /// allOf, or anyOf at the top level", as for Anthropic §3 #45).
    pub const BEDROCK_ROOT_COMBINATOR: &str = "bedrock/root-combinator";
    /// Top-level property keys as Claude's (the same `ValidationException` text through Converse,
    /// aws-solutions-library-samples IDP#709).
    pub const BEDROCK_PROPERTY_KEY: &str = "bedrock/property-key";
    /// `toolSpec.strict: false`: some Claude ids on Bedrock reject the field even when false
    /// ("Extra inputs are not permitted"); a tool that is not strict leaves it out.
    pub const BEDROCK_STRICT_FALSE: &str = "bedrock/strict-false";
}

use rules::*;

// ---------------------------------------------------------------------------
// Public entry point
// ---------------------------------------------------------------------------

/// Validate the whole converted output for `target`; returns every violation
/// (empty = the provider should accept it).
pub fn validate(target: Target, output: &Value) -> Vec<Violation> {
    let mut sink = Sink::default();
    let tools = extract_tools(target, output, &mut sink);

    check_names(target, &tools, &mut sink);
    check_tool_counts(target, &tools, &mut sink);

    // Aggregates for Anthropic strict limits, summed across strict tools.
    let mut anthropic_totals = AnthropicTotals::default();
    for tool in &tools {
        check_tool_schema(target, tool, &mut sink, &mut anthropic_totals);
    }
    if matches!(family(target), Family::Anthropic | Family::Bedrock) {
        anthropic_totals.report(&mut sink);
    }
    sink.0
}

// ---------------------------------------------------------------------------
// Plumbing
// ---------------------------------------------------------------------------

/// Collects violations.
#[derive(Default)]
struct Sink(Vec<Violation>);

impl Sink {
    fn push(&mut self, tool: &str, path: &str, rule: &str, message: impl Into<String>) {
        self.0.push(Violation {
            tool: tool.to_string(),
            path: path.to_string(),
            rule: rule.to_string(),
            message: message.into(),
        });
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    OpenAiChat,
    OpenAiResponses,
    Anthropic,
    /// Gemini `parameters` (Developer API); `vertex` adds the anyOf-only rule.
    GeminiParameters { vertex: bool },
    GeminiJsonSchema,
    Bedrock,
}

fn family(target: Target) -> Family {
    match target {
        Target::OpenAi | Target::OpenAiStrict => Family::OpenAiChat,
        Target::OpenAiResponses | Target::OpenAiResponsesStrict => Family::OpenAiResponses,
        Target::Anthropic | Target::AnthropicStrict => Family::Anthropic,
        Target::GeminiParameters => Family::GeminiParameters { vertex: false },
        Target::Vertex => Family::GeminiParameters { vertex: true },
        Target::GeminiJsonSchema => Family::GeminiJsonSchema,
        Target::Bedrock | Target::BedrockStrict => Family::Bedrock,
    }
}

/// JSON-pointer child path (RFC 6901 escaping).
fn child(path: &str, token: &str) -> String {
    format!("{}/{}", path, token.replace('~', "~0").replace('/', "~1"))
}

/// Short JSON rendering for messages.
fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(77).collect();
        format!("{cut}...")
    } else {
        s
    }
}

// ---------------------------------------------------------------------------
// Output shape → list of tools
// ---------------------------------------------------------------------------

/// One tool (function declaration) found in the output.
struct Tool<'a> {
    /// Name if it is a string, else `#<index>`; used as `Violation::tool`.
    label: String,
    /// The name, when it is a string.
    name: Option<&'a str>,
    /// The tool's schema value, when present.
    schema: Option<&'a Value>,
    /// Whether the tool was emitted with `strict: true`.
    strict: bool,
}

/// How the `strict` flag is treated for a shape.
#[derive(Clone, Copy, PartialEq, Eq)]
enum StrictFlag {
    /// Field not part of the shape.
    NotAllowed,
    /// Optional; a boolean when present.
    Optional,
    /// Must be present and boolean (Responses, §1.2 "Always send `strict` explicitly").
    Required,
}

/// Description of a "function-like" object (the object holding name/description/schema).
struct FnShape<'s> {
    allowed: &'s [&'s str],
    schema_key: &'s str,
    schema_required: bool,
    strict: StrictFlag,
}

/// Flag keys of `obj` not in `allowed` as `shape/unknown-field`.
fn check_unknown_fields(obj: &Map<String, Value>, allowed: &[&str], label: &str, what: &str, sink: &mut Sink) {
    for key in obj.keys() {
        if !allowed.contains(&key.as_str()) {
            sink.push(label, "", SHAPE_UNKNOWN_FIELD, format!("unknown field `{key}` on {what}"));
        }
    }
}

/// Read name/description/schema/strict from a function-like object.
fn read_fn<'a>(obj: &'a Map<String, Value>, index: usize, shape: &FnShape<'_>, what: &str, sink: &mut Sink) -> Tool<'a> {
    let name = obj.get("name").and_then(Value::as_str);
    let label = name.map(str::to_string).unwrap_or_else(|| format!("#{index}"));
    match obj.get("name") {
        None => sink.push(&label, "", SHAPE_NAME, format!("{what} has no `name`")),
        Some(Value::String(_)) => {}
        Some(other) => sink.push(&label, "", SHAPE_NAME, format!("`name` must be a string, got {}", show(other))),
    }
    check_unknown_fields(obj, shape.allowed, &label, what, sink);
    if let Some(d) = obj.get("description") {
        if !d.is_string() {
            sink.push(&label, "", SHAPE_DESCRIPTION, format!("`description` must be a string, got {}", show(d)));
        }
    }
    let schema = obj.get(shape.schema_key);
    if schema.is_none() && shape.schema_required {
        sink.push(&label, "", SHAPE_SCHEMA, format!("{what} has no `{}`", shape.schema_key));
    }
    let strict = match (shape.strict, obj.get("strict")) {
        (StrictFlag::Required, None) => {
            sink.push(&label, "", SHAPE_STRICT_FLAG, "`strict` must be present (true or false)");
            false
        }
        (_, None) => false,
        (StrictFlag::NotAllowed, Some(_)) => false, // already reported as unknown field
        (_, Some(Value::Bool(b))) => *b,
        (_, Some(other)) => {
            sink.push(&label, "", SHAPE_STRICT_FLAG, format!("`strict` must be a boolean, got {}", show(other)));
            false
        }
    };
    Tool { label, name, schema, strict }
}

/// Placeholder for an entry whose shape is too broken to read.
fn broken_tool<'a>(index: usize) -> Tool<'a> {
    Tool { label: format!("#{index}"), name: None, schema: None, strict: false }
}

fn extract_tools<'a>(target: Target, output: &'a Value, sink: &mut Sink) -> Vec<Tool<'a>> {
    let Some(entries) = output.as_array() else {
        // §3 #30: tools must be an array (Gemini) — and every shape here is an array.
        sink.push("", "", SHAPE_OUTPUT, format!("output must be a JSON array, got {}", show(output)));
        return Vec::new();
    };
    match family(target) {
        Family::OpenAiChat => extract_openai_chat(entries, sink),
        Family::OpenAiResponses => extract_flat(entries, sink, &FnShape {
            allowed: &["type", "name", "description", "parameters", "strict"],
            schema_key: "parameters",
            schema_required: true,
            strict: StrictFlag::Required,
        }, true),
        Family::Anthropic => extract_flat(entries, sink, &FnShape {
            // `type: "custom"` and `cache_control` are documented Tool fields (§1.3).
            allowed: &["name", "description", "input_schema", "strict", "type", "cache_control"],
            schema_key: "input_schema",
            schema_required: true,
            strict: StrictFlag::Optional,
        }, false),
        Family::GeminiParameters { .. } => extract_gemini(entries, sink, "parameters", "parametersJsonSchema"),
        Family::GeminiJsonSchema => extract_gemini(entries, sink, "parametersJsonSchema", "parameters"),
        Family::Bedrock => extract_bedrock(entries, sink),
    }
}

/// Chat Completions: `[{"type":"function","function":{name, description?, parameters, strict?}}]` (§1.1).
fn extract_openai_chat<'a>(entries: &'a [Value], sink: &mut Sink) -> Vec<Tool<'a>> {
    let shape = FnShape {
        allowed: &["name", "description", "parameters", "strict"],
        schema_key: "parameters",
        schema_required: true,
        strict: StrictFlag::Optional,
    };
    let mut tools = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let Some(obj) = entry.as_object() else {
            sink.push(&format!("#{i}"), "", SHAPE_TOOL, format!("tool entry must be an object, got {}", show(entry)));
            tools.push(broken_tool(i));
            continue;
        };
        let Some(func) = obj.get("function").and_then(Value::as_object) else {
            sink.push(&format!("#{i}"), "", SHAPE_TOOL, "tool entry needs a `function` object");
            tools.push(broken_tool(i));
            continue;
        };
        let tool = read_fn(func, i, &shape, "function", sink);
        if obj.get("type").and_then(Value::as_str) != Some("function") {
            sink.push(&tool.label, "", SHAPE_TOOL, "tool entry needs `\"type\": \"function\"`");
        }
        check_unknown_fields(obj, &["type", "function"], &tool.label, "tool entry", sink);
        tools.push(tool);
    }
    tools
}

/// Flat shapes: Responses (`type:"function"` required) and Anthropic.
fn extract_flat<'a>(entries: &'a [Value], sink: &mut Sink, shape: &FnShape<'_>, needs_function_type: bool) -> Vec<Tool<'a>> {
    let mut tools = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let Some(obj) = entry.as_object() else {
            sink.push(&format!("#{i}"), "", SHAPE_TOOL, format!("tool entry must be an object, got {}", show(entry)));
            tools.push(broken_tool(i));
            continue;
        };
        let tool = read_fn(obj, i, shape, "tool", sink);
        let ty = obj.get("type");
        if needs_function_type {
            if ty.and_then(Value::as_str) != Some("function") {
                sink.push(&tool.label, "", SHAPE_TOOL, "tool needs `\"type\": \"function\"`");
            }
        } else if let Some(t) = ty {
            // Anthropic: a client tool may carry `type: "custom"`, nothing else.
            if t.as_str() != Some("custom") {
                sink.push(&tool.label, "", SHAPE_TOOL, format!("custom tool `type` must be \"custom\" if present, got {}", show(t)));
            }
        }
        tools.push(tool);
    }
    tools
}

/// Gemini: `[{"functionDeclarations":[{name, description?, <schema_key>?}]}]` (§1.4).
fn extract_gemini<'a>(entries: &'a [Value], sink: &mut Sink, schema_key: &str, other_key: &str) -> Vec<Tool<'a>> {
    // The converter emits exactly one Tool object holding every declaration.
    if entries.len() > 1 {
        sink.push("", "", SHAPE_OUTPUT, format!("expected one outer element with `functionDeclarations`, got {}", entries.len()));
    }
    let allowed = ["name", "description", "parameters", "parametersJsonSchema", "response", "responseJsonSchema", "behavior"];
    let shape = FnShape { allowed: &allowed, schema_key, schema_required: false, strict: StrictFlag::NotAllowed };
    let mut tools = Vec::new();
    for (outer_i, entry) in entries.iter().enumerate() {
        let decls = match entry.as_object() {
            Some(obj) => {
                for key in obj.keys().filter(|k| k.as_str() != "functionDeclarations") {
                    sink.push("", "", SHAPE_UNKNOWN_FIELD, format!("unknown field `{key}` on outer tool element {outer_i}"));
                }
                obj.get("functionDeclarations").and_then(Value::as_array)
            }
            None => None,
        };
        let Some(decls) = decls else {
            sink.push("", "", SHAPE_OUTPUT, format!("outer element {outer_i} must be an object with a `functionDeclarations` array"));
            continue;
        };
        for decl in decls {
            let i = tools.len();
            let Some(obj) = decl.as_object() else {
                sink.push(&format!("#{i}"), "", SHAPE_TOOL, format!("function declaration must be an object, got {}", show(decl)));
                tools.push(broken_tool(i));
                continue;
            };
            let tool = read_fn(obj, i, &shape, "function declaration", sink);
            // `parameters` XOR `parametersJsonSchema` (§1.4); each mode uses exactly one.
            if obj.contains_key(other_key) {
                sink.push(&tool.label, "", SHAPE_SCHEMA, format!("`{other_key}` must not appear in this mode (use `{schema_key}` only)"));
            }
            tools.push(tool);
        }
    }
    tools
}

/// Bedrock: `[{"toolSpec":{name, description?, inputSchema:{json:{…}}}}]` (§1.5).
fn extract_bedrock<'a>(entries: &'a [Value], sink: &mut Sink) -> Vec<Tool<'a>> {
    let shape = FnShape {
        allowed: &["name", "description", "inputSchema", "strict"],
        schema_key: "inputSchema",
        schema_required: true,
        strict: StrictFlag::Optional,
    };
    let mut tools = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let Some(spec) = entry.get("toolSpec").and_then(Value::as_object) else {
            sink.push(&format!("#{i}"), "", SHAPE_TOOL, "tool entry must be an object with a `toolSpec` object");
            tools.push(broken_tool(i));
            continue;
        };
        let mut tool = read_fn(spec, i, &shape, "toolSpec", sink);
        if let Some(obj) = entry.as_object() {
            check_unknown_fields(obj, &["toolSpec"], &tool.label, "tool entry", sink);
        }
        // The schema lives one level down, in inputSchema.json.
        tool.schema = match tool.schema {
            Some(Value::Object(input)) => {
                check_unknown_fields(input, &["json"], &tool.label, "inputSchema", sink);
                let json = input.get("json");
                if json.is_none() {
                    sink.push(&tool.label, "", SHAPE_SCHEMA, "`inputSchema` needs a `json` member");
                }
                json
            }
            Some(other) => {
                sink.push(&tool.label, "", SHAPE_SCHEMA, format!("`inputSchema` must be an object, got {}", show(other)));
                None
            }
            None => None,
        };
        if spec.get("strict") == Some(&Value::Bool(false)) {
            sink.push(&tool.label, "", BEDROCK_STRICT_FALSE, "`strict: false` is rejected by some Claude models on Bedrock; leave it out");
        }
        // §1.5 / §3 #51: description min length 1.

        if spec.get("description").and_then(Value::as_str) == Some("") {
            sink.push(&tool.label, "", BEDROCK_EMPTY_DESCRIPTION, "`description` must be non-empty when present (omit it instead)");
        }
        tools.push(tool);
    }
    tools
}

// ---------------------------------------------------------------------------
// Names and counts
// ---------------------------------------------------------------------------

/// `^[a-zA-Z0-9_-]{1,64}$` — OpenAI (§1.1), Anthropic (§1.3, target 64), Bedrock (§1.5).
fn is_basic_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$` — Gemini / Vertex (§1.4 "Function name").
fn is_gemini_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    let Some(&first) = bytes.first() else { return false };
    bytes.len() <= 64
        && (first.is_ascii_alphabetic() || first == b'_')
        && bytes.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

fn check_names(target: Target, tools: &[Tool<'_>], sink: &mut Sink) {
    let (rule, pattern, ok): (&str, &str, fn(&str) -> bool) = match family(target) {
        Family::OpenAiChat | Family::OpenAiResponses => (OPENAI_NAME, "^[a-zA-Z0-9_-]{1,64}$", is_basic_name),
        Family::Anthropic => (ANTHROPIC_NAME, "^[a-zA-Z0-9_-]{1,64}$", is_basic_name),
        Family::Bedrock => (BEDROCK_NAME, "^[a-zA-Z0-9_-]{1,64}$", is_basic_name),
        Family::GeminiParameters { .. } | Family::GeminiJsonSchema => {
            (GEMINI_NAME, "^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$", is_gemini_name)
        }
    };
    let mut seen = HashSet::new();
    for tool in tools {
        let Some(name) = tool.name else { continue };
        if !ok(name) {
            sink.push(&tool.label, "", rule, format!("name {name:?} does not match {pattern}"));
        }
        // §3 #54/#55: a duplicate name makes one of the tools unreachable.
        if !seen.insert(name) {
            sink.push(&tool.label, "", DUPLICATE_NAME, format!("name {name:?} is used by more than one tool"));
        }
    }
}

fn check_tool_counts(target: Target, tools: &[Tool<'_>], sink: &mut Sink) {
    match family(target) {
        // §1.1 / §1.8: 128 tools per request (reported, not primary-sourced).
        Family::OpenAiChat | Family::OpenAiResponses if tools.len() > 128 => {
            sink.push("", "", OPENAI_TOOL_COUNT, format!("{} tools exceed the 128-tool limit", tools.len()));
        }
        // §1.4: "Maximum 512 function declarations can be provided".
        Family::GeminiParameters { .. } | Family::GeminiJsonSchema if tools.len() > 512 => {
            sink.push("", "", GEMINI_DECLARATION_COUNT, format!("{} declarations exceed the 512 limit", tools.len()));
        }
        // §1.3 strict limits: ≤ 20 strict tools per request.
        Family::Anthropic | Family::Bedrock => {
            let strict = tools.iter().filter(|t| t.strict).count();
            if strict > 20 {
                sink.push("", "", ANTHROPIC_STRICT_TOOL_COUNT, format!("{strict} strict tools exceed the limit of 20"));
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------
// Structural schema walker
// ---------------------------------------------------------------------------

/// Which keyword vocabulary a schema is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    /// Full JSON Schema (draft 2020-12 plus draft-07 spellings).
    JsonSchema,
    /// Gemini's OpenAPI-subset `Schema`: only `properties`, `items`, `anyOf` hold subschemas.
    Gemini,
}

/// How a node was reached from its parent.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Via {
    Root,
    /// Value in a `properties` map.
    Property,
    /// `items` (or an element of a draft-04 tuple `items` array).
    Items,
    /// Element of `anyOf`.
    AnyOf,
    /// Value in `$defs` / `definitions`.
    Definition,
    /// Any other subschema position (`not`, `if`, `additionalProperties`, …).
    Other,
}

/// A schema node found by the walker.
struct Node<'a> {
    /// JSON pointer from the schema root.
    path: String,
    /// The node (an object or a boolean schema).
    value: &'a Value,
    via: Via,
    /// Number of object-typed nodes on the path from the root down to and
    /// including this node (the root object = 1).
    object_depth: usize,
}

impl<'a> Node<'a> {
    fn obj(&self) -> Option<&'a Map<String, Value>> {
        self.value.as_object()
    }
}

/// Does `node`'s `type` name `wanted` (a string, or an element of a type array)?
/// ASCII case-insensitive, so it serves Gemini's `OBJECT` spelling too.
fn type_includes(node: &Map<String, Value>, wanted: &str) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t.eq_ignore_ascii_case(wanted),
        Some(Value::Array(ts)) => ts.iter().any(|t| t.as_str().is_some_and(|t| t.eq_ignore_ascii_case(wanted))),
        _ => false,
    }
}

/// A node that describes a JSON object: typed `object`, or untyped with `properties`.
fn is_object_node(node: &Map<String, Value>) -> bool {
    type_includes(node, "object") || (!node.contains_key("type") && node.contains_key("properties"))
}

/// Collect every subschema node of `root` (root first, depth-first), reporting
/// structural problems (`common/property-value-not-schema`,
/// `common/malformed-keyword`) on the way. Only keyword positions that hold
/// subschemas are entered; data keywords (`enum`, `const`, `default`,
/// `examples`, `example`, …) and unknown keys are never descended into.
fn walk<'a>(root: &'a Value, dialect: Dialect, label: &str, sink: &mut Sink) -> Vec<Node<'a>> {
    let mut nodes = Vec::new();
    visit(root, String::new(), Via::Root, 0, dialect, label, sink, &mut nodes);
    nodes
}

#[allow(clippy::too_many_arguments)]
fn visit<'a>(
    value: &'a Value,
    path: String,
    via: Via,
    parent_depth: usize,
    dialect: Dialect,
    label: &str,
    sink: &mut Sink,
    nodes: &mut Vec<Node<'a>>,
) {
    let obj = match value {
        Value::Object(obj) => Some(obj),
        Value::Bool(_) => None,
        // Callers only pass objects/booleans; anything else was reported by them.
        _ => return,
    };
    let depth = parent_depth + usize::from(obj.is_some_and(is_object_node));
    nodes.push(Node { path: path.clone(), value, via, object_depth: depth });
    let Some(obj) = obj else { return };

    for (key, v) in obj {
        let kp = child(&path, key);
        match (dialect, key.as_str()) {
            // --- maps from NAME to subschema: keys are names, values schemas ---
            (_, "properties") => {
                let Some(map) = v.as_object() else {
                    sink.push(label, &kp, MALFORMED_KEYWORD, format!("`properties` must be an object, got {}", show(v)));
                    continue;
                };
                for (name, sub) in map {
                    let p = child(&kp, name);
                    if sub.is_object() || sub.is_boolean() {
                        visit(sub, p, Via::Property, depth, dialect, label, sink, nodes);
                    } else {
                        // §1.1 / §3 #38: `'object' is not of type 'object', 'boolean'`.
                        sink.push(label, &p, PROPERTY_VALUE_NOT_SCHEMA, format!("property {name:?} is not a schema: {}", show(sub)));
                    }
                }
            }
            (Dialect::JsonSchema, "patternProperties" | "dependentSchemas" | "$defs" | "definitions") => {
                let Some(map) = v.as_object() else {
                    sink.push(label, &kp, MALFORMED_KEYWORD, format!("`{key}` must be an object, got {}", show(v)));
                    continue;
                };
                let via = if matches!(key.as_str(), "$defs" | "definitions") { Via::Definition } else { Via::Other };
                for (name, sub) in map {
                    let p = child(&kp, name);
                    if sub.is_object() || sub.is_boolean() {
                        visit(sub, p, via.clone(), depth, dialect, label, sink, nodes);
                    } else {
                        sink.push(label, &p, MALFORMED_KEYWORD, format!("`{key}` entry {name:?} is not a schema: {}", show(sub)));
                    }
                }
            }
            // draft-07 `dependencies`: schema values are subschemas, array values are property lists.
            (Dialect::JsonSchema, "dependencies") => {
                let Some(map) = v.as_object() else {
                    sink.push(label, &kp, MALFORMED_KEYWORD, format!("`dependencies` must be an object, got {}", show(v)));
                    continue;
                };
                for (name, sub) in map {
                    if sub.is_object() || sub.is_boolean() {
                        visit(sub, child(&kp, name), Via::Other, depth, dialect, label, sink, nodes);
                    }
                }
            }
            // --- single subschemas ---
            (_, "items") => match v {
                Value::Array(elems) if dialect == Dialect::JsonSchema => {
                    // draft-04 tuple form.
                    for (i, e) in elems.iter().enumerate() {
                        let p = child(&kp, &i.to_string());
                        if e.is_object() || e.is_boolean() {
                            visit(e, p, Via::Items, depth, dialect, label, sink, nodes);
                        } else {
                            sink.push(label, &p, MALFORMED_KEYWORD, format!("`items` element is not a schema: {}", show(e)));
                        }
                    }
                }
                _ if v.is_object() || v.is_boolean() => visit(v, kp, Via::Items, depth, dialect, label, sink, nodes),
                _ => sink.push(label, &kp, MALFORMED_KEYWORD, format!("`items` must be a schema, got {}", show(v))),
            },
            (
                Dialect::JsonSchema,
                "additionalProperties" | "additionalItems" | "unevaluatedItems" | "unevaluatedProperties" | "contains"
                | "propertyNames" | "not" | "if" | "then" | "else" | "contentSchema",
            ) => {
                if v.is_object() || v.is_boolean() {
                    visit(v, kp, Via::Other, depth, dialect, label, sink, nodes);
                } else {
                    sink.push(label, &kp, MALFORMED_KEYWORD, format!("`{key}` must be a schema, got {}", show(v)));
                }
            }
            // --- arrays of subschemas ---
            (_, "anyOf") | (Dialect::JsonSchema, "oneOf" | "allOf" | "prefixItems") => {
                let Some(elems) = v.as_array() else {
                    sink.push(label, &kp, MALFORMED_KEYWORD, format!("`{key}` must be an array of schemas, got {}", show(v)));
                    continue;
                };
                if elems.is_empty() && key != "prefixItems" {
                    sink.push(label, &kp, MALFORMED_KEYWORD, format!("`{key}` must be a non-empty array"));
                }
                let via = if key == "anyOf" { Via::AnyOf } else { Via::Other };
                for (i, e) in elems.iter().enumerate() {
                    let p = child(&kp, &i.to_string());
                    if e.is_object() || e.is_boolean() {
                        visit(e, p, via.clone(), depth, dialect, label, sink, nodes);
                    } else {
                        sink.push(label, &p, MALFORMED_KEYWORD, format!("`{key}` element is not a schema: {}", show(e)));
                    }
                }
            }
            // `required` is not a subschema, but it is checked here once for every dialect.
            (_, "required") => {
                let ok = v.as_array().is_some_and(|a| a.iter().all(Value::is_string));
                if !ok {
                    sink.push(label, &kp, MALFORMED_KEYWORD, format!("`required` must be an array of strings, got {}", show(v)));
                }
            }
            // Everything else is data or an annotation: never descend.
            _ => {}
        }
    }
}

/// Names listed in a node's `required` (non-strings ignored; reported by the walker).
fn required_names(node: &Map<String, Value>) -> Vec<&str> {
    node.get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Keys of a node's `properties` map (empty if absent/malformed).
fn property_names(node: &Map<String, Value>) -> Vec<&str> {
    node.get("properties")
        .and_then(Value::as_object)
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------
// $ref resolution (local references only)
// ---------------------------------------------------------------------------

/// Decode `%XX` escapes in a URI fragment (left as-is when malformed).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(b) = hex {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// Resolve a local `$ref` against `root`. Returns the canonical JSON pointer
/// of the target and the target value, or `None` when the reference is not
/// local or its target does not exist. Supports `#`, `#/json/pointer` and
/// plain-name fragments (`#name` → `$anchor: "name"`).
fn resolve_ref<'a>(root: &'a Value, nodes: &[Node<'a>], reference: &str) -> Option<(String, &'a Value)> {
    let fragment = reference.strip_prefix('#')?;
    let fragment = percent_decode(fragment);
    if fragment.is_empty() {
        return Some((String::new(), root));
    }
    if let Some(pointer) = fragment.strip_prefix('/') {
        let mut current = root;
        let mut canonical = String::new();
        for raw in pointer.split('/') {
            let token = raw.replace("~1", "/").replace("~0", "~");
            current = match current {
                Value::Object(map) => map.get(&token)?,
                Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
            canonical = child(&canonical, &token);
        }
        return Some((canonical, current));
    }
    // Plain-name fragment: find the schema node declaring this `$anchor`.
    nodes
        .iter()
        .find(|n| n.obj().and_then(|o| o.get("$anchor")).and_then(Value::as_str) == Some(fragment.as_str()))
        .map(|n| (n.path.clone(), n.value))
}

/// Is `path` inside the subtree rooted at pointer `ancestor` (inclusive)?
fn is_within(path: &str, ancestor: &str) -> bool {
    ancestor.is_empty() || path == ancestor || path.starts_with(&format!("{ancestor}/"))
}

/// Pointers of ref targets that take part in a reference cycle.
/// Graph: target T1 → T2 when a `$ref` to T2 sits inside T1's subtree.
fn recursive_ref_targets(root: &Value, nodes: &[Node<'_>]) -> BTreeSet<String> {
    // (path of the $ref node, pointer of its target)
    let refs: Vec<(String, String)> = nodes
        .iter()
        .filter_map(|n| {
            let r = n.obj()?.get("$ref")?.as_str()?;
            let (target, _) = resolve_ref(root, nodes, r)?;
            Some((n.path.clone(), target))
        })
        .collect();
    let targets: BTreeSet<&str> = refs.iter().map(|(_, t)| t.as_str()).collect();
    let edges = |from: &str| -> Vec<&str> {
        refs.iter().filter(|(at, _)| is_within(at, from)).map(|(_, to)| to.as_str()).collect()
    };
    let mut cyclic = BTreeSet::new();
    for &start in &targets {
        // Is `start` reachable from itself?
        let mut stack = edges(start);
        let mut seen = BTreeSet::new();
        while let Some(t) = stack.pop() {
            if t == start {
                cyclic.insert(start.to_string());
                break;
            }
            if seen.insert(t) {
                stack.extend(edges(t));
            }
        }
    }
    cyclic
}

// ---------------------------------------------------------------------------
// Per-tool schema checks
// ---------------------------------------------------------------------------

fn check_tool_schema(target: Target, tool: &Tool<'_>, sink: &mut Sink, totals: &mut AnthropicTotals) {
    let Some(schema) = tool.schema else { return };
    let label = tool.label.as_str();
    match family(target) {
        Family::OpenAiChat | Family::OpenAiResponses => {
            let Some(root) = schema.as_object() else {
                // §3 #35: `None is not of type 'object'`.
                sink.push(label, "", SHAPE_SCHEMA, format!("`parameters` must be a JSON object, got {}", show(schema)));
                return;
            };
            check_openai_root(root, label, sink);
            let nodes = walk(schema, Dialect::JsonSchema, label, sink);
            check_array_items(&nodes, OPENAI_ARRAY_ITEMS, label, sink);
            if tool.strict {
                check_openai_strict(&nodes, label, sink);
                for node in &nodes {
                    let Some(reference) = node.obj().and_then(|o| o.get("$ref")) else { continue };
                    let resolves = reference.as_str().and_then(|r| resolve_ref(schema, &nodes, r)).is_some_and(|(_, t)| t.is_object());
                    if !resolves {
                        sink.push(label, &node.path, OPENAI_STRICT_UNRESOLVED_REF, format!("`$ref` {} does not resolve to a schema object in this document", show(reference)));
                    }
                }
            }
        }
        Family::Anthropic => {
            let Some(root) = schema.as_object() else {
                sink.push(label, "", SHAPE_SCHEMA, format!("`input_schema` must be a JSON object, got {}", show(schema)));
                return;
            };
            check_anthropic_root(root, label, sink);
            let nodes = walk(schema, Dialect::JsonSchema, label, sink);
            if tool.strict {
                check_anthropic_strict(schema, &nodes, label, sink, totals);
            }
        }
        Family::Bedrock => {
            let Some(root) = schema.as_object() else {
                sink.push(label, "", SHAPE_SCHEMA, format!("`inputSchema.json` must be a JSON object, got {}", show(schema)));
                return;
            };
            // §1.5 / §3 #52: `inputSchema.json.type must be one of the following: object`.
            if root.get("type").and_then(Value::as_str) != Some("object") {
                sink.push(label, "", BEDROCK_ROOT_TYPE, format!("root `type` must be \"object\", got {}", show(root.get("type").unwrap_or(&Value::Null))));
            }
            for key in ["anyOf", "oneOf", "allOf"] {
                if root.contains_key(key) {
                    sink.push(label, "", BEDROCK_ROOT_COMBINATOR, format!("`{key}` is not allowed at the top level"));
                }
            }
            check_property_keys(root, BEDROCK_PROPERTY_KEY, label, sink);
            let nodes = walk(schema, Dialect::JsonSchema, label, sink);
            // Strict tool use on Bedrock is Claude's.
            if tool.strict {
                check_anthropic_strict(schema, &nodes, label, sink, totals);
            }
        }
        Family::GeminiParameters { vertex } => {
            if !(schema.is_object() || schema.is_boolean()) {
                sink.push(label, "", SHAPE_SCHEMA, format!("`parameters` must be a JSON object, got {}", show(schema)));
                return;
            }
            // §1.4a / §3 #25: root must be OBJECT.
            let root_is_object = schema.as_object().and_then(|o| o.get("type")).and_then(Value::as_str).is_some_and(|t| t.eq_ignore_ascii_case("object"));
            if !root_is_object {
                sink.push(label, "", GEMINI_ROOT_TYPE, "root `parameters` schema must have `type: \"object\"`/`\"OBJECT\"`");
            }
            let nodes = walk(schema, Dialect::Gemini, label, sink);
            check_array_items(&nodes, GEMINI_ARRAY_ITEMS, label, sink);
            check_gemini_nodes(&nodes, vertex, label, sink);
        }
        Family::GeminiJsonSchema => check_gemini_json(schema, label, sink),
    }
}

/// OpenAI and Gemini: every `type: "array"` node has `items` (§1.1, §1.4a, §3 #6–#8, #36).
fn check_array_items(nodes: &[Node<'_>], rule: &str, label: &str, sink: &mut Sink) {
    for node in nodes {
        let Some(obj) = node.obj() else { continue };
        if type_includes(obj, "array") && !obj.contains_key("items") {
            sink.push(label, &node.path, rule, "array schema missing `items`");
        }
    }
}

// ---- OpenAI -------------------------------------------------------------

fn check_openai_root(root: &Map<String, Value>, label: &str, sink: &mut Sink) {
    // §1.1 / §3 #37: "schema must have type 'object'".
    if root.get("type").and_then(Value::as_str) != Some("object") {
        sink.push(label, "", OPENAI_ROOT_TYPE, format!("root `type` must be \"object\", got {}", show(root.get("type").unwrap_or(&Value::Null))));
    }
    // §1.1 / §3 #34: "object schema missing properties".
    if !root.get("properties").is_some_and(Value::is_object) {
        sink.push(label, "", OPENAI_ROOT_PROPERTIES, "root schema must have a `properties` object");
    }
    // §1.1 / §3 #37: no oneOf/anyOf/allOf/enum/not at the top level
    // (also covers strict mode's "root must not be anyOf").
    for key in ["oneOf", "anyOf", "allOf", "enum", "not"] {
        if root.contains_key(key) {
            sink.push(label, "", OPENAI_ROOT_COMBINATOR, format!("`{key}` is not allowed at the top level"));
        }
    }
}

/// §1.1 strict: formats Structured Outputs accepts.
const OPENAI_STRICT_FORMATS: &[&str] = &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

fn check_openai_strict(nodes: &[Node<'_>], label: &str, sink: &mut Sink) {
    let mut property_count = 0usize;
    let mut enum_values = 0usize;
    let mut string_chars = 0usize;
    let mut nesting_reported = false;

    for node in nodes {
        // Definition names count toward the string budget (§1.1: "property/definition names").
        if node.via == Via::Definition {
            if let Some(name) = node.path.rsplit('/').next() {
                string_chars += name.replace("~1", "/").replace("~0", "~").chars().count();
            }
        }
        let Some(obj) = node.obj() else { continue };

        // Objects: additionalProperties:false and required == all property keys.
        if is_object_node(obj) {
            if obj.get("additionalProperties") != Some(&Value::Bool(false)) {
                sink.push(label, &node.path, OPENAI_STRICT_ADDITIONAL_PROPERTIES, "object must set `additionalProperties: false`");
            }
            let props = property_names(obj);
            let required = required_names(obj);
            let missing: Vec<&str> = props.iter().copied().filter(|p| !required.contains(p)).collect();
            let extra: Vec<&str> = required.iter().copied().filter(|r| !props.contains(r)).collect();
            let unique: BTreeSet<&str> = required.iter().copied().collect();
            if !missing.is_empty() || !extra.is_empty() || unique.len() != required.len() {
                sink.push(label, &node.path, OPENAI_STRICT_REQUIRED_ALL, format!("`required` must list every property exactly once; missing {missing:?}, extra {extra:?}"));
            }
        }

        // Unsupported keywords.
        for key in ["allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "patternProperties", "oneOf"] {
            if obj.contains_key(key) {
                sink.push(label, &node.path, OPENAI_STRICT_UNSUPPORTED_KEYWORD, format!("`{key}` is not supported in strict mode"));
            }
        }

        // format allow-list (§3 #40: `'uri' is not a valid format`).
        if let Some(f) = obj.get("format") {
            if !f.as_str().is_some_and(|f| OPENAI_STRICT_FORMATS.contains(&f)) {
                sink.push(label, &node.path, OPENAI_STRICT_FORMAT, format!("format {} is not supported in strict mode", show(f)));
            }
        }

        // `$ref` siblings: only `description`.
        if obj.contains_key("$ref") {
            let extra: Vec<&str> = obj.keys().map(String::as_str).filter(|k| !matches!(*k, "$ref" | "description")).collect();
            if !extra.is_empty() {
                sink.push(label, &node.path, OPENAI_STRICT_REF_SIBLINGS, format!("`$ref` has sibling keywords {extra:?}"));
            }
        }

        // Budgets.
        if let Some(props) = obj.get("properties").and_then(Value::as_object) {
            property_count += props.len();
            string_chars += props.keys().map(|k| k.chars().count()).sum::<usize>();
        }
        if let Some(values) = obj.get("enum").and_then(Value::as_array) {
            enum_values += values.len();
            let chars: usize = values.iter().filter_map(Value::as_str).map(|s| s.chars().count()).sum();
            string_chars += chars;
            // An optional property's enum, made nullable, is still an enum of strings.
            if values.len() > 250 && values.iter().all(|v| v.is_string() || v.is_null()) && chars > 15_000 {
                sink.push(label, &node.path, OPENAI_STRICT_LIMIT_LARGE_ENUM, format!("string enum with {} values totals {chars} chars (> 15,000)", values.len()));
            }
        }
        if let Some(s) = obj.get("const").and_then(Value::as_str) {
            string_chars += s.chars().count();
        }
        // Nesting: the root object is level 1; $refs are not followed, and
        // objects under `$defs` count from where they are declared.
        if node.object_depth > 10 && !nesting_reported {
            nesting_reported = true;
            sink.push(label, &node.path, OPENAI_STRICT_LIMIT_NESTING, format!("objects nested {} levels deep (> 10)", node.object_depth));
        }
    }

    if property_count > 5_000 {
        sink.push(label, "", OPENAI_STRICT_LIMIT_PROPERTIES, format!("{property_count} object properties (> 5,000)"));
    }
    if enum_values > 1_000 {
        sink.push(label, "", OPENAI_STRICT_LIMIT_ENUM_VALUES, format!("{enum_values} enum values in total (> 1,000)"));
    }
    if string_chars > 120_000 {
        sink.push(label, "", OPENAI_STRICT_LIMIT_STRING_SIZE, format!("{string_chars} chars of names and enum/const strings (> 120,000)"));
    }
}

// ---- Anthropic -----------------------------------------------------------

fn check_anthropic_root(root: &Map<String, Value>, label: &str, sink: &mut Sink) {
    // §1.3: `input_schema.type` is the literal 'object'.
    if root.get("type").and_then(Value::as_str) != Some("object") {
        sink.push(label, "", ANTHROPIC_ROOT_TYPE, format!("`input_schema.type` must be \"object\", got {}", show(root.get("type").unwrap_or(&Value::Null))));
    }
    check_property_keys(root, ANTHROPIC_PROPERTY_KEY, label, sink);
    // §1.3 / §3 #45: "does not support oneOf, allOf, or anyOf at the top level".
    for key in ["anyOf", "oneOf", "allOf"] {
        if root.contains_key(key) {
            sink.push(label, "", ANTHROPIC_ROOT_COMBINATOR, format!("`{key}` is not allowed at the top level"));
        }
    }
}

/// Claude's pattern for the keys of the root's `properties`, `^[a-zA-Z0-9_.-]{1,64}$`.
fn check_property_keys(root: &Map<String, Value>, rule: &str, label: &str, sink: &mut Sink) {
    let Some(Value::Object(props)) = root.get("properties") else { return };
    for key in props.keys() {
        let ok = (1..=64).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
        if !ok {
            sink.push(label, &format!("/properties/{key}"), rule, format!("property key {} does not match '^[a-zA-Z0-9_.-]{{1,64}}$'", show(&Value::String(key.clone()))));
        }
    }
}

/// §1.3 strict: formats the grammar compiler accepts.
/// The keywords of Claude's strict subset (§1.3 strict), annotations included.
const ANTHROPIC_STRICT_KEYWORDS: &[&str] = &[
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "allOf", "enum", "const", "format", "pattern",
    "minItems", "$ref", "$defs", "definitions", "title", "description", "default", "examples", "example", "$id", "$comment",
    "deprecated", "readOnly", "writeOnly",
];

/// Keywords that constrain nothing: a schema of only these takes any value.
const ANTHROPIC_STRICT_ANNOTATIONS: &[&str] =
    &["title", "description", "default", "examples", "example", "$id", "$comment", "deprecated", "readOnly", "writeOnly", "$defs", "definitions"];

const ANTHROPIC_STRICT_FORMATS: &[&str] = &["date-time", "date", "time", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];

/// Request-wide counters for the Anthropic strict limits (§1.3).
#[derive(Default)]
struct AnthropicTotals {
    /// Properties not listed in their object's `required`, over all strict tools.
    optional_params: usize,
    /// Properties whose schema uses `anyOf` or a `type` array, over all strict tools.
    union_params: usize,
}

impl AnthropicTotals {
    fn report(&self, sink: &mut Sink) {
        if self.optional_params > 24 {
            sink.push("", "", ANTHROPIC_STRICT_OPTIONAL_PARAMS, format!("{} optional parameters across strict tools (> 24)", self.optional_params));
        }
        if self.union_params > 16 {
            sink.push("", "", ANTHROPIC_STRICT_UNION_PARAMS, format!("{} parameters using anyOf/type arrays across strict tools (> 16)", self.union_params));
        }
    }
}

fn check_anthropic_strict(root: &Value, nodes: &[Node<'_>], label: &str, sink: &mut Sink, totals: &mut AnthropicTotals) {
    for node in nodes {
        if node.value == &Value::Bool(true) {
            sink.push(label, &node.path, ANTHROPIC_STRICT_UNTYPED, "a `true` schema (any value)");
        }
        let Some(obj) = node.obj() else { continue };

        if is_object_node(obj) && obj.get("additionalProperties") != Some(&Value::Bool(false)) {
            sink.push(label, &node.path, ANTHROPIC_STRICT_ADDITIONAL_PROPERTIES, "object must set `additionalProperties: false`");
        }
        for key in obj.keys() {
            if !ANTHROPIC_STRICT_KEYWORDS.contains(&key.as_str()) && !key.starts_with("x-") {
                sink.push(label, &node.path, ANTHROPIC_STRICT_UNSUPPORTED_KEYWORD, format!("`{key}` is not supported in strict mode"));
            }
        }
        let complex = |v: &Value| v.is_object() || v.is_array();
        if obj.get("enum").and_then(Value::as_array).is_some_and(|e| e.iter().any(complex)) || obj.get("const").is_some_and(complex) {
            sink.push(label, &node.path, ANTHROPIC_STRICT_UNTYPED, "`enum`/`const` of objects or arrays (strict mode takes primitives)");
        }
        // A property, the items or an `anyOf` branch (an `allOf` branch so chooses nothing).
        let typed_slot = matches!(node.via, Via::Property | Via::Items | Via::AnyOf);
        if typed_slot && obj.keys().all(|k| ANTHROPIC_STRICT_ANNOTATIONS.contains(&k.as_str()) || k.starts_with("x-")) {
            sink.push(label, &node.path, ANTHROPIC_STRICT_UNTYPED, "a schema without a type (any value)");
        }
        if is_object_node(obj) && obj.get("additionalProperties") == Some(&Value::Bool(false)) {
            if let Some(why) = closed_branch_conflict(obj, &property_names(obj), 0) {
                sink.push(label, &node.path, ANTHROPIC_STRICT_UNSATISFIABLE, why);
            }
        }
        if obj.contains_key("oneOf") {
            sink.push(label, &node.path, ANTHROPIC_STRICT_ONE_OF, "`oneOf` is not supported in strict mode (`anyOf` is)");
        }
        if let Some(min) = obj.get("minItems") {
            if !matches!(min.as_u64(), Some(0 | 1)) {
                sink.push(label, &node.path, ANTHROPIC_STRICT_MIN_ITEMS, format!("`minItems` must be 0 or 1 in strict mode, got {}", show(min)));
            }
        }
        if let Some(f) = obj.get("format") {
            if !f.as_str().is_some_and(|f| ANTHROPIC_STRICT_FORMATS.contains(&f)) {
                sink.push(label, &node.path, ANTHROPIC_STRICT_FORMAT, format!("format {} is not supported in strict mode", show(f)));
            }
        }
        // Request-wide budgets count parameters at every nesting level.
        if let Some(props) = obj.get("properties").and_then(Value::as_object) {
            let required = required_names(obj);
            for (name, sub) in props {
                if !required.contains(&name.as_str()) {
                    totals.optional_params += 1;
                }
                let union = sub.as_object().is_some_and(|s| s.contains_key("anyOf") || s.get("type").is_some_and(Value::is_array));
                if union {
                    totals.union_params += 1;
                }
            }
        }
    }
    for target in recursive_ref_targets(root, nodes) {
        sink.push(label, &target, ANTHROPIC_STRICT_RECURSIVE_REF, "recursive `$ref` cycle through this schema (not supported in strict mode)");
    }
}

/// A combinator branch under a closed object that no value can satisfy with it: an object
/// branch (closed too in strict mode, or open where the parent is not), or one requiring a
/// name that `declared` lacks; branches' own combinators included.
fn closed_branch_conflict(node: &Map<String, Value>, declared: &[&str], depth: usize) -> Option<String> {
    for key in ["anyOf", "oneOf", "allOf"] {
        for b in node.get(key).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object) {
            if is_object_node(b) {
                return Some(format!("a `{key}` branch is an object of its own under a closed object"));
            }
            if let Some(name) = required_names(b).into_iter().find(|n| !declared.contains(n)) {
                return Some(format!("a `{key}` branch requires \"{name}\", which the closed object does not declare"));
            }
            if depth < 8 {
                if let Some(why) = closed_branch_conflict(b, declared, depth + 1) {
                    return Some(why);
                }
            }
        }
    }
    None
}

// ---- Gemini `parameters` / Vertex ----------------------------------------

/// §1.4a: keys of the `Schema` interface (js-genai types.ts).
const GEMINI_ALLOWED_KEYS: &[&str] = &[
    "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required",
    "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
    "default", "items", "minimum", "maximum",
];

/// §1.4a: usable type names (NULL / TYPE_UNSPECIFIED are rejected in practice, §3 #23).
const GEMINI_TYPES: &[&str] = &["string", "number", "integer", "boolean", "array", "object"];

/// The node's type, lower-cased, when it is a single valid Gemini type name
/// spelled all-lowercase or all-uppercase.
fn gemini_type(obj: &Map<String, Value>) -> Option<String> {
    let t = obj.get("type")?.as_str()?;
    let lower = t.to_ascii_lowercase();
    let spelled_ok = t == lower || t == t.to_ascii_uppercase();
    (spelled_ok && GEMINI_TYPES.contains(&lower.as_str())).then_some(lower)
}

fn check_gemini_nodes(nodes: &[Node<'_>], vertex: bool, label: &str, sink: &mut Sink) {
    for node in nodes {
        let path = node.path.as_str();
        // §3 #28: boolean sub-schemas are rejected.
        let Some(obj) = node.obj() else {
            sink.push(label, path, GEMINI_BOOLEAN_SCHEMA, format!("boolean schema {} is not allowed", node.value));
            continue;
        };

        // §1.4a / §3 #26, #27: allow-list, not deny-list.
        for key in obj.keys() {
            if !GEMINI_ALLOWED_KEYS.contains(&key.as_str()) {
                sink.push(label, path, GEMINI_UNKNOWN_KEY, format!("unknown Schema field `{key}`"));
            }
        }

        // §1.4a / §3 #3, #23: `type` is one of the single type names.
        let ty = gemini_type(obj);
        if let Some(t) = obj.get("type") {
            if ty.is_none() {
                sink.push(label, path, GEMINI_TYPE, format!("`type` must be one of {GEMINI_TYPES:?} (single value, lower or upper case), got {}", show(t)));
            }
        }

        // §1.4a / §3 #31: never both `type` and `anyOf`; every node needs one of them.
        let has_anyof = obj.contains_key("anyOf");
        if obj.contains_key("type") && has_anyof {
            sink.push(label, path, GEMINI_TYPE_AND_ANYOF, "node has both `type` and `anyOf`");
        }
        if !obj.contains_key("type") && !has_anyof {
            sink.push(label, path, GEMINI_UNTYPED_NODE, "node has neither `type` nor `anyOf`");
        }

        // §1.4a / §3 #23: no `{type: null}` branch in anyOf.
        if let Some(branches) = obj.get("anyOf").and_then(Value::as_array) {
            for (i, b) in branches.iter().enumerate() {
                let is_null = b.get("type").and_then(Value::as_str).is_some_and(|t| t.eq_ignore_ascii_case("null"));
                if is_null {
                    sink.push(label, &child(&child(path, "anyOf"), &i.to_string()), GEMINI_ANYOF_NULL_BRANCH, "`anyOf` branch `{type: null}` is rejected; use `nullable`");
                }
            }
        }

        // §1.4a / §3 #22 (Vertex only): anyOf must be the only field.
        if vertex && has_anyof && obj.len() > 1 {
            let others: Vec<&str> = obj.keys().map(String::as_str).filter(|k| *k != "anyOf").collect();
            sink.push(label, path, VERTEX_ANYOF_SIBLINGS, format!("node with `anyOf` also sets {others:?}"));
        }

        // §1.4a / §3 #9–#11: enum of strings, only on STRING nodes.
        if let Some(values) = obj.get("enum") {
            match values.as_array() {
                Some(values) => {
                    if let Some(bad) = values.iter().find(|v| !v.is_string()) {
                        sink.push(label, path, GEMINI_ENUM_NOT_STRING, format!("enum values must be strings, found {}", show(bad)));
                    }
                }
                None => sink.push(label, path, MALFORMED_KEYWORD, format!("`enum` must be an array, got {}", show(values))),
            }
            if ty.as_deref() != Some("string") {
                sink.push(label, path, GEMINI_ENUM_TYPE, "`enum` is only allowed on STRING nodes");
            }
        }

        // §1.4a / §3 #12: format per type.
        if let Some(f) = obj.get("format") {
            let allowed: &[&str] = match ty.as_deref() {
                Some("string") => &["enum", "date-time"],
                Some("number") => &["float", "double"],
                Some("integer") => &["int32", "int64"],
                _ => &[],
            };
            if !f.as_str().is_some_and(|f| allowed.contains(&f)) {
                sink.push(label, path, GEMINI_FORMAT, format!("format {} is not allowed for type {}", show(f), ty.as_deref().unwrap_or("<none>")));
            }
        }

        // §1.4a / §3 #15: properties/required only on OBJECT nodes.
        let is_object = ty.as_deref() == Some("object");
        for key in ["properties", "required"] {
            if obj.contains_key(key) && !is_object {
                sink.push(label, path, GEMINI_PROPERTIES_NON_OBJECT, format!("`{key}` is only allowed on OBJECT nodes"));
            }
        }

        // §1.4a / §3 #13: properties must be non-empty.
        if obj.get("properties").and_then(Value::as_object).is_some_and(Map::is_empty) {
            sink.push(label, path, GEMINI_EMPTY_PROPERTIES, "`properties` must be non-empty (omit it instead)");
        }

        // §1.4a / §3 #14, #16: required ⊆ properties.
        if obj.contains_key("required") {
            let props = property_names(obj);
            let undefined: Vec<&str> = required_names(obj).into_iter().filter(|r| !props.contains(r)).collect();
            if !undefined.is_empty() {
                sink.push(label, path, GEMINI_REQUIRED_UNDEFINED, format!("required fields {undefined:?} are not defined in `properties`"));
            }
        }
    }
}

// ---- Gemini `parametersJsonSchema` -----------------------------------------

fn check_gemini_json(schema: &Value, label: &str, sink: &mut Sink) {
    match schema {
        Value::Bool(false) => {
            sink.push(label, "", GEMINI_JSON_ROOT_FALSE, "root schema `false` accepts no arguments");
            return;
        }
        Value::Object(root) if root.get("type").and_then(Value::as_str) == Some("object") => {}
        Value::Object(_) | Value::Bool(true) => {
            sink.push(label, "", GEMINI_JSON_ROOT_TYPE, "root `parametersJsonSchema` must be an object schema with `type: \"object\"`");
        }
        other => {
            sink.push(label, "", SHAPE_SCHEMA, format!("`parametersJsonSchema` must be a JSON object, got {}", show(other)));
            return;
        }
    }
    let nodes = walk(schema, Dialect::JsonSchema, label, sink);
    for node in &nodes {
        let Some(obj) = node.obj() else { continue };
        let Some(r) = obj.get("$ref") else { continue };
        let Some(reference) = r.as_str() else {
            sink.push(label, &node.path, MALFORMED_KEYWORD, format!("`$ref` must be a string, got {}", show(r)));
            continue;
        };
        // §1.4b / §3 #20: "reference to undefined schema".
        let resolves_to_schema = resolve_ref(schema, &nodes, reference).is_some_and(|(_, t)| t.is_object() || t.is_boolean());
        if !resolves_to_schema {
            sink.push(label, &node.path, GEMINI_JSON_UNRESOLVED_REF, format!("`$ref` {reference:?} does not resolve to a schema in this document"));
        }
        // §1.4b / §3 #19: only description and default may sit next to $ref.
        let extra: Vec<&str> = obj.keys().map(String::as_str).filter(|k| !matches!(*k, "$ref" | "description" | "default")).collect();
        if !extra.is_empty() {
            sink.push(label, &node.path, GEMINI_JSON_REF_SIBLINGS, format!("`$ref` set alongside unsupported fields {extra:?}"));
        }
    }
}
