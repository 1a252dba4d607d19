//! Schema conversion per provider, on arbitrary JSON.
//!
//! The input bytes, if they are JSON, are used twice: as the `inputSchema` of one tool, and as the
//! whole tools input (an array, `{tools}` or a `tools/list` response). Each is converted for every
//! provider and mode. Conversion must never panic; on `Ok` the output must pass the independent
//! provider validator (tests/validator, written from the providers' documented rules, not from
//! the converter); on `Err` the code must be one that hostile input is allowed to cause. And
//! `convert_json` on the same text (which passes clean schemas through and lowers simple ones for Gemini, src/fast/) must give
//! the general path's output byte for byte, or the same error code. Text that is not JSON must
//! be INVALID_JSON there too. Its `x-mcp-header` marks (MCP 2026-07-28) are read as the client reads
//! them, and what is taken must keep the revision's rules.
#![no_main]

#[path = "../../tests/validator/mod.rs"]
mod validator;

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use toolwire::convert::{convert, convert_json, convert_json_named, ConvertOptions};
use toolwire::providers::{GeminiMode, Provider};
use toolwire::ErrorCode;
use validator::{validate, Target};

/// (label, provider, strict, gemini mode, validator target), as in tests/corpus.rs.
const MODES: [(&str, Provider, bool, GeminiMode, Target); 11] = [
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
    ("bedrock strict", Provider::Bedrock, true, GeminiMode::Parameters, Target::BedrockStrict),
];

fn check(what: &str, input: &Value, text: Option<&str>) {
    for (label, provider, strict, mode, target) in MODES {
        let mut opts = ConvertOptions { server: Some("fuzz".into()), ..ConvertOptions::default() };
        opts.schema.strict = strict;
        opts.schema.gemini_mode = mode;
        let general = convert(input.clone(), provider, &opts);
        if let Some(text) = text {
            match (&general, convert_json(text, provider, &opts)) {
            (Ok(conv), Ok(out)) => {
                assert!(out == conv.tools.to_string(), "{label} ({what}): convert_json differs from convert:\n{}\n{}", trim(&out), trim(&conv.tools.to_string()));
                // The name map with its argument plans (NameMap.fromTools, McpHub), also kept without a report.
                let named = convert_json_named(text, provider, &opts).expect("converts as convert_json did");
                assert!(named.name_map == conv.name_map, "{label} ({what}): convert_json_named's name map differs from convert's");
            }
            (Err(a), Err(b)) => assert_eq!(a.code, b.code, "{label} ({what}): convert_json fails differently"),
            (a, b) => panic!("{label} ({what}): convert {:?} but convert_json {:?}", a.as_ref().err(), b.err()),
            }
        }
        match general {
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
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        // Not JSON: the pass-through path's own reader (src/fast/read.rs) must refuse it too.
        let wrapped = format!(r#"[{{"name":"fuzz_tool","inputSchema":{text}}}]"#);
        for (label, provider, strict, mode, _) in MODES {
            let mut opts = ConvertOptions::default();
            opts.schema.strict = strict;
            opts.schema.gemini_mode = mode;
            for text in [text, wrapped.as_str()] {
                if serde_json::from_str::<Value>(text).is_err() {
                    let e = convert_json(text, provider, &opts).expect_err(label);
                    assert_eq!(e.code, ErrorCode::InvalidJson, "{label}: {e}");
                }
            }
        }
        return;
    };
    let tool = json!([{ "name": "fuzz_tool", "description": "A tool under fuzzing.", "inputSchema": v }]);
    // Text is read with serde_json's nesting limit (128): near it, wrapping the input in a tool
    // list would make the text path fail where the in-memory Value converts.
    let shallow = toolwire::model::json_size(&v).depth < 120;
    let tool_text = tool.to_string();
    check("as inputSchema", &tool, shallow.then_some(tool_text.as_str()));
    // The text as given: duplicate keys, escapes, number spellings and whitespace included.
    let wrapped = format!(r#"[{{"name":"fuzz_tool","description":"A tool under fuzzing.","inputSchema":{text}}}]"#);
    if shallow {
        check("as inputSchema text", &tool, Some(&wrapped));
    }
    check("as the tools input", &v, Some(text));
    header_marks(&v);
});

/// The same schema as a 2026-07-28 tool's `inputSchema`: its `x-mcp-header` marks are read
/// without a panic, and every mark taken is a non-empty HTTP token on a `properties` path, each
/// name once; the headers made from arguments built along those paths are valid header values.
fn header_marks(schema: &Value) {
    use toolwire::protocol::headers::{header_params, param_headers};
    let Ok(marks) = header_params(schema) else { return };
    let mut args = json!({});
    for (i, m) in marks.iter().enumerate() {
        assert!(!m.path.is_empty() && !m.header.is_empty(), "{m:?}");
        assert!(m.header.bytes().all(|b| b.is_ascii_graphic() && !b"\"(),/:;<=>?@[\\]{}".contains(&b)), "{m:?}");
        assert!(!marks[..i].iter().any(|o| o.header.eq_ignore_ascii_case(&m.header)), "{m:?} twice");
        let mut at = &mut args;
        for (depth, name) in m.path.iter().enumerate() {
            let Value::Object(o) = at else { break };
            let last = depth + 1 == m.path.len();
            at = o.entry(name.clone()).or_insert_with(|| if last { json!(" é\n") } else { json!({}) });
        }
    }
    if let Ok(headers) = param_headers(&marks, &args) {
        for (k, v) in headers {
            assert!(k.starts_with("mcp-param-") && v.bytes().all(|b| (0x20..0x7f).contains(&b)) && !v.starts_with(' ') && !v.ends_with(' '), "{k}: {v:?}");
        }
    }
}
