//! AWS Bedrock Converse (`toolSpec.inputSchema.json`).
//!
//! Steps, in order:
//! 1. Root combinators merged into one `type:"object"` schema (Bedrock: "inputSchema.json.type
//!    must be one of the following: object").
//! 2. Structure fixed on every node ([`super::fix_structure`]).
//! 3. Top-level property keys outside `^[a-zA-Z0-9_.-]{1,64}$` renamed, as for Anthropic
//!    ([`crate::providers::keys`]): Converse passes Claude's validator through
//!    (`ValidationException: tools.0.custom.input_schema.properties: Property keys should match
//!    pattern ...`); `bedrock/property-renamed`. Other Bedrock models document no such rule, but
//!    the tools do not say which model they are for.
//!
//! Strict tool use (`toolSpec.strict`, when `strict` is asked for) is Claude's on Bedrock, with
//! Claude's subset and limits (<https://docs.aws.amazon.com/bedrock/latest/userguide/structured-output.html>):
//! the strict steps of [`crate::providers::anthropic`], reported as `bedrock/...`. The steps up
//! to there are the same as Anthropic's, so it is that compiler, with Bedrock's rule names.
//!
//! The tool-level rules (a non-empty description or none; names `[a-zA-Z0-9_-]{1,64}`) are
//! applied by the converter.

use serde_json::Value;

use crate::error::Result;
use crate::providers::anthropic::{self, Rules};
use crate::providers::{Compiled, SchemaOptions};
use crate::schema::Cx;

/// Bedrock's rule names for Claude's strict subset.
pub(crate) const RULES: Rules = Rules {
    keyword: "bedrock/strict-keyword",
    one_of: "bedrock/strict-oneof",
    all_of: "bedrock/strict-allof",
    close: "bedrock/strict-close",
    fallback: "bedrock/strict-fallback",
    limit: "bedrock/strict-limit",
    who: "Claude's on Bedrock",
    property: "bedrock/property-renamed",
    provider: "Bedrock's Claude validator",
};

/// Compiles for Bedrock.
pub fn compile(root: Value, opts: &SchemaOptions, cx: &mut Cx) -> Result<Compiled> {
    anthropic::compile_with(root, opts, cx, &RULES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{process_json_schema, Limits};
    use serde_json::json;

    #[test]
    fn root_is_an_object() {
        // https://github.com/kirodotdev/Kiro/issues/11026
        let mut cx = Cx::new(Limits::default());
        let (root, _) = process_json_schema(&json!({"allOf":[{"type":"object","properties":{"a":{}}}]}), &mut cx);
        let c = compile(root, &SchemaOptions::default(), &mut cx).unwrap();
        let s = c.schema.unwrap();
        assert_eq!(s["type"], "object");
        assert!(s.get("allOf").is_none());
        assert_eq!(s["properties"]["a"], json!({}));
    }

    #[test]
    fn strict_is_claudes_under_bedrock_names() {
        let mut cx = Cx::new(Limits::default());
        let input = json!({"type":"object","properties":{"n":{"type":"integer","minimum":1},"u":{"oneOf":[{"type":"string"},{"type":"null"}]}},"required":["n"]});
        let (root, _) = process_json_schema(&input, &mut cx);
        let c = compile(root, &SchemaOptions { strict: true, ..SchemaOptions::default() }, &mut cx).unwrap();
        assert_eq!(c.strict, Some(true));
        let s = c.schema.unwrap();
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(s["properties"]["u"], json!({"anyOf":[{"type":"string"},{"type":"null"}]}));
        assert!(s["properties"]["n"].get("minimum").is_none());
        let rules: Vec<&str> = cx.changes.iter().map(|d| d.rule).collect();
        assert_eq!(rules, ["bedrock/strict-close", "bedrock/strict-keyword", "bedrock/strict-oneof"]);
        // An object open by omission is closed, and said (probe F7); one that says `true` means
        // its undeclared properties: not strict.
        for (open, strict) in [(json!({"type":"object","properties":{"k":{"type":"string"}}}), true), (json!({"type":"object","properties":{"k":{"type":"string"}},"additionalProperties":true}), false)] {
            let mut cx = Cx::new(Limits::default());
            let (root, _) = process_json_schema(&json!({"type":"object","properties":{"o":open},"required":["o"],"additionalProperties":false}), &mut cx);
            let c = compile(root, &SchemaOptions { strict: true, ..SchemaOptions::default() }, &mut cx).unwrap();
            assert_eq!(c.strict, strict.then_some(true));
            assert_eq!(c.schema.unwrap()["properties"]["o"]["additionalProperties"], json!(!strict));
            let closed: Vec<&str> = cx.changes.iter().filter(|d| d.rule == "bedrock/strict-close").map(|d| d.path.as_str()).collect();
            assert_eq!(closed, if strict { vec!["/properties/o"] } else { vec![] }, "{:?}", cx.changes);
        }
        // An open map cannot be strict: sent as it is, and said so.
        let mut cx = Cx::new(Limits::default());
        let (root, _) = process_json_schema(&json!({"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}}}), &mut cx);
        let c = compile(root, &SchemaOptions { strict: true, ..SchemaOptions::default() }, &mut cx).unwrap();
        assert_eq!(c.strict, None);
        assert_eq!(cx.problems[0].rule, "bedrock/strict-fallback");
    }
}
