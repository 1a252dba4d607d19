//! AWS Bedrock Converse (`toolSpec.inputSchema.json`).
//!
//! Steps, in order:
//! 1. Root combinators merged into one `type:"object"` schema (Bedrock: "inputSchema.json.type
//!    must be one of the following: object").
//! 2. Structure fixed on every node ([`fix_structure`]).
//!
//! The tool-level rules (a non-empty description or none; names `[a-zA-Z0-9_-]{1,64}`) are
//! applied by the converter.

use serde_json::Value;

use crate::args::ArgPlan;
use crate::error::Result;
use crate::providers::{fix_structure, Compiled, SchemaOptions};
use crate::schema::lower::merge_root_combinators;
use crate::schema::Cx;

/// Compiles for Bedrock.
pub fn compile(mut root: Value, _opts: &SchemaOptions, cx: &mut Cx) -> Result<Compiled> {
    if let Value::Object(obj) = &mut root {
        merge_root_combinators(obj, cx);
    }
    fix_structure(&mut root, cx)?;
    cx.reset_budget();
    Ok(Compiled { schema: Some(root), strict: None, plan: ArgPlan::default(), relaxed: None })
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
}
