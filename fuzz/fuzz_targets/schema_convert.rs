//! Schema conversion per provider, on arbitrary JSON.
//!
//! The input bytes, if they are JSON, are used twice: as the `inputSchema` of one tool, and as the
//! whole tools input (an array, `{tools}` or a `tools/list` response). Each is converted for every
//! provider and mode. Conversion must never panic; on `Ok` the output must pass the independent
//! provider validator (tests/validator, written from the providers' documented rules, not from
//! the converter); on `Err` the code must be one that hostile input is allowed to cause.
#![no_main]

#[path = "../../tests/validator/mod.rs"]
mod validator;

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use toolwire::convert::{convert, ConvertOptions};
use toolwire::providers::{GeminiMode, Provider};
use toolwire::ErrorCode;
use validator::{validate, Target};

/// (label, provider, strict, gemini mode, validator target), as in tests/corpus.rs.
const MODES: [(&str, Provider, bool, GeminiMode, Target); 10] = [
    ("openai", Provider::OpenAi, false, GeminiMode::Parameters, Target::OpenAi),
    ("openai strict", Provider::OpenAi, true, GeminiMode::Parameters, Target::OpenAiStrict),
    ("openai-responses", Provider::OpenAiResponses, false, GeminiMode::Parameters, Target::OpenAiResponses),
    ("openai-responses strict", Provider::OpenAiResponses, true, GeminiMode::Parameters, Target::OpenAiResponsesStrict),
    ("anthropic", Provider::Anthropic, false, GeminiMode::Parameters, Target::Anthropic),
    ("anthropic strict", Provider::Anthropic, true, GeminiMode::Parameters, Target::AnthropicStrict),
    ("gemini parameters", Provider::Gemini, false, GeminiMode::Parameters, Target::GeminiParameters),
    ("gemini parametersJsonSchema", Provider::Gemini, false, GeminiMode::JsonSchema, Target::GeminiJsonSchema),
    ("vertex", Provider::Vertex, false, GeminiMode::Parameters, Target::Vertex),
    ("bedrock", Provider::Bedrock, false, GeminiMode::Parameters, Target::Bedrock),
];

fn check(what: &str, input: &Value) {
    for (label, provider, strict, mode, target) in MODES {
        let mut opts = ConvertOptions { server: Some("fuzz".into()), ..ConvertOptions::default() };
        opts.schema.strict = strict;
        opts.schema.gemini_mode = mode;
        match convert(input.clone(), provider, &opts) {
            Ok(conv) => {
                let count_reported = conv.report.problems.iter().any(|d| d.rule == "limits/tool-count");
                let violations: Vec<String> = validate(target, &conv.tools)
                    .into_iter()
                    .filter(|v| !(v.rule == "openai/tool-count" && count_reported))
                    .map(|v| format!("  {} {} {}: {}", v.tool, v.path, v.rule, v.message))
                    .collect();
                assert!(
                    violations.is_empty(),
                    "{label} ({what}): the output breaks {} provider rule(s):\n{}\noutput: {}",
                    violations.len(),
                    violations.join("\n"),
                    trim(&conv.tools.to_string()),
                );
            }
            Err(e) => assert!(
                matches!(e.code, ErrorCode::InvalidJson | ErrorCode::InvalidInput | ErrorCode::InvalidTool | ErrorCode::LimitExceeded),
                "{label} ({what}): unexpected error code {:?}: {e}",
                e.code
            ),
        }
    }
}

fn trim(s: &str) -> String {
    if s.len() <= 4000 {
        return s.to_owned();
    }
    let mut end = 4000;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes)", &s[..end], s.len())
}

fuzz_target!(|data: &[u8]| {
    let Ok(v) = serde_json::from_slice::<Value>(data) else { return };
    let tool = json!([{ "name": "fuzz_tool", "description": "A tool under fuzzing.", "inputSchema": v }]);
    check("as inputSchema", &tool);
    check("as the tools input", &v);
});
