//! Root and nested combinators that used to cost exponential time, leave combinators the
//! providers refuse, or lose what the user wrote: every provider's output passes the validator
//! and keeps (or reports) every property.
#![cfg(not(target_arch = "wasm32"))]

mod validator;

use serde_json::{json, Value};
use toolwire::convert::{convert, Conversion, ConvertOptions};
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

/// `schema` converted for every target, each output checked by the validator.
fn every_target(schema: &Value) -> Vec<(Target, Conversion)> {
    let tools = json!([{ "name": "t", "description": "d", "inputSchema": schema }]);
    targets()
        .into_iter()
        .map(|(provider, strict, mode, target)| {
            let mut opts = ConvertOptions::default();
            opts.schema.strict = strict;
            opts.schema.gemini_mode = mode;
            let conv = convert(tools.clone(), provider, &opts).unwrap();
            let v = validate(target, &conv.tools);
            assert!(v.is_empty(), "{target:?}: {v:?}\ninput: {schema}\noutput: {}", conv.tools);
            (target, conv)
        })
        .collect()
}

/// The converted tool's parameter schema, whatever the provider's envelope.
fn params(conv: &Conversion) -> &Value {
    let t = &conv.tools[0];
    for p in ["/function/parameters", "/parameters", "/functionDeclarations/0/parameters", "/functionDeclarations/0/parametersJsonSchema", "/input_schema", "/toolSpec/inputSchema/json", "/parametersJsonSchema"] {
        if let Some(v) = t.pointer(p) {
            return v;
        }
    }
    panic!("no parameters in {t}")
}

/// `defs` definitions `D0..`, each with a property and an `allOf` of `fan` references to the
/// next: every path through them is one more branch if a reference is merged more than once.
fn diamond(defs: usize, fan: usize) -> Value {
    let mut d = serde_json::Map::new();
    for i in 0..defs {
        let next: Vec<Value> = if i + 1 < defs { (0..fan).map(|_| json!({"$ref": format!("#/$defs/D{}", i + 1)})).collect() } else { vec![] };
        let mut def = json!({"type": "object", "properties": {format!("p{i}"): {"type": "string"}}});
        if !next.is_empty() {
            def["allOf"] = Value::Array(next);
        }
        d.insert(format!("D{i}"), def);
    }
    json!({"allOf": [{"$ref": "#/$defs/D0"}], "$defs": d})
}

/// A root `allOf` over references that share their targets merges each target once: the
/// branches merged in all stay linear in the definitions (they were `fan^defs` before).
#[test]
fn root_all_of_merges_each_reference_once() {
    let schema = diamond(6, 4);
    for (target, conv) in every_target(&schema) {
        let p = params(&conv);
        for i in 0..6 {
            assert!(p.pointer(&format!("/properties/p{i}")).is_some(), "{target:?}: p{i} missing in {p}");
        }
        let merged: usize = conv.report.tools[0]
            .changes
            .iter()
            .filter(|d| d.rule == "schema/root-combinator")
            .filter_map(|d| d.message.split(" of ").nth(1)?.split(' ').next()?.parse::<usize>().ok())
            .sum();
        assert!(merged <= 6 * 4 + 1, "{target:?}: {merged} branches merged");
    }
}

/// A root `allOf` nested deeper than a fixed number of passes (a chain of nine references, a
/// definition that refers to itself, nine levels inline) is merged to the end: no combinator
/// left at the root, every property kept.
#[test]
fn root_all_of_is_merged_to_the_end() {
    let mut defs = serde_json::Map::new();
    for i in 0..10 {
        let mut d = json!({"type": "object", "properties": {format!("c{i}"): {"type": "string"}}});
        if i < 9 {
            d["allOf"] = json!([{"$ref": format!("#/$defs/C{}", i + 1)}]);
        }
        defs.insert(format!("C{i}"), d);
    }
    let chain = json!({"allOf": [{"$ref": "#/$defs/C0"}], "$defs": defs});
    let selfref = json!({"allOf": [{"$ref": "#/$defs/N"}], "$defs": {"N": {"type": "object", "properties": {"a": {}}, "allOf": [{"$ref": "#/$defs/N"}]}}});
    let mut inline = json!({"type": "object", "properties": {"i10": {"type": "string"}}});
    for i in (0..10).rev() {
        inline = json!({"allOf": [{"type": "object", "properties": {format!("i{i}"): {"type": "string"}}}, inline]});
    }
    for (schema, names) in [(chain, (0..10).map(|i| format!("c{i}")).collect::<Vec<_>>()), (selfref, vec!["a".into()]), (inline, (0..11).map(|i| format!("i{i}")).collect())] {
        for (target, conv) in every_target(&schema) {
            let p = params(&conv);
            assert!(p.get("allOf").is_none(), "{target:?}: {p}");
            for n in &names {
                assert!(p["properties"].get(n).is_some(), "{target:?}: {n} missing in {p}");
            }
        }
    }
}

/// Strict modes merge an `allOf` whose branch has an `allOf` of its own all the way down: the
/// inner branches' properties and `required` are kept.
#[test]
fn strict_nested_all_of_keeps_the_inner_branches() {
    let schema = json!({"type":"object","properties":{"o":{"allOf":[{"allOf":[{"type":"object","properties":{"z":{"type":"string"}},"required":["z"]},
        {"type":"object","properties":{"y":{"type":"integer"}}}]},{"type":"object","properties":{"p":{"type":"string"}}}]}},"required":["o"]});
    for (target, conv) in every_target(&schema) {
        let p = params(&conv);
        let o = &p["properties"]["o"];
        let text = o.to_string();
        for n in ["\"z\"", "\"y\"", "\"p\""] {
            assert!(text.contains(n), "{target:?}: {n} missing in {o}");
        }
        if matches!(target, Target::OpenAiStrict | Target::OpenAiResponsesStrict | Target::AnthropicStrict) {
            assert!(o["required"].as_array().unwrap().contains(&json!("z")), "{target:?}: {o}");
            assert!(o["properties"]["z"].is_object() && o["properties"]["y"].is_object(), "{target:?}: {o}");
        }
    }
}

/// OpenAPI's `nullable: true` on the root: the arguments stay an object (`type: "object"`).
#[test]
fn a_nullable_root_stays_an_object() {
    let schema = json!({"type":"object","nullable":true,"properties":{"a":{"type":"string"}},"required":["a"]});
    for (target, conv) in every_target(&schema) {
        let p = params(&conv);
        assert!(!p["type"].to_string().to_lowercase().contains("null"), "{target:?}: {p}");
    }
}

/// A root `allOf` whose branches limit a property to enums with no common value: no empty
/// `enum` (nor a `null`-only one) is sent, and a problem names the property.
#[test]
fn disjoint_enums_in_a_root_all_of_are_a_problem() {
    let schema = json!({"allOf":[{"type":"object","properties":{"e":{"enum":["a","b"]},"x":{"type":"string"}}},{"type":"object","properties":{"e":{"enum":["c"]}}}]});
    for (target, conv) in every_target(&schema) {
        let p = params(&conv);
        let text = p.to_string();
        assert!(!text.contains("\"enum\":[]") && !text.contains("\"enum\":[null]"), "{target:?}: {p}");
        let problems = &conv.report.tools[0].problems;
        assert!(problems.iter().any(|d| d.message.contains("\"e\"")), "{target:?}: {problems:?}");
    }
}

/// A root `oneOf` beside the root's own properties: the root's definition holds in every
/// alternative, so a property is the root's definition limited to the alternatives' values.
#[test]
fn root_properties_hold_beside_a_root_union() {
    let schema = json!({"type":"object","properties":{"action":{"type":"string"},"name":{"type":"string"},"id":{"type":"integer"}},
        "oneOf":[{"properties":{"action":{"const":"create"}},"required":["action","name"]},{"properties":{"action":{"const":"delete"}},"required":["action","id"]}]});
    for (target, conv) in every_target(&schema) {
        let action = &params(&conv)["properties"]["action"];
        let text = action.to_string().to_lowercase();
        assert!(!text.contains("anyof") && text.contains("\"create\"") && text.contains("\"delete\"") && text.contains("enum"), "{target:?}: {action}");
    }
}

/// `unevaluatedItems` beside another keyword whose evaluated items the array decides
/// (`contains`, union branches or conditions that evaluate different prefixes) is not written
/// as `items` over all the items: what it limited is reported instead, for every target.
#[test]
fn unevaluated_items_beside_undecided_evaluators_is_reported() {
    for node in [
        json!({"type":"array","contains":{"type":"string"},"unevaluatedItems":false}),
        json!({"type":"array","anyOf":[{"prefixItems":[{"type":"string"}]},{"prefixItems":[{"type":"string"},{"type":"integer"}]}],"unevaluatedItems":false}),
        json!({"type":"array","if":{"minItems":2},"then":{"prefixItems":[{"type":"string"}]},"unevaluatedItems":false}),
    ] {
        let schema = json!({"type":"object","properties":{"t":node}});
        for (target, conv) in every_target(&schema) {
            let text = params(&conv).to_string();
            assert!(!text.contains("\"items\":false"), "{target:?}: {text}");
            let problems = &conv.report.tools[0].problems;
            assert!(problems.iter().any(|d| d.message.contains("unevaluatedItems")), "{target:?}: {node} {problems:?}");
        }
    }
}

/// `unevaluatedItems` beside keywords that evaluate a prefix known from the schema (a `$ref`
/// to a tuple, `allOf` branches' tuples: the longest) says what the items past it may be:
/// written as `items` after that prefix, a change and no problem. Beside `items` in place it
/// limits nothing. Each output takes the same arrays as the input.
#[test]
fn unevaluated_items_after_a_known_prefix_is_items_there() {
    let pair = json!({"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]});
    let gemini = [Target::GeminiParameters, Target::Vertex];
    // (node, an array it takes, one it refuses, whether Gemini's `parameters` can say it)
    for (node, valid, invalid, in_gemini) in [
        (json!({"type":"array","$ref":"#/$defs/Pair","unevaluatedItems":false}), json!(["a", 1]), json!(["a", 1, 2]), true),
        (json!({"type":"array","allOf":[{"$ref":"#/$defs/Pair"},{"minItems":1}],"unevaluatedItems":false}), json!(["a", 1]), json!(["a", 1, "b"]), true),
        // Gemini merges `allOf`, and of two different tuples keeps the first (reported).
        (json!({"type":"array","allOf":[{"prefixItems":[{"type":"string"}]},{"$ref":"#/$defs/Pair"}],"unevaluatedItems":false}), json!(["a", 1]), json!(["a", 1, "b"]), false),
        (json!({"type":"array","allOf":[{"prefixItems":[{"type":"string"}]}],"unevaluatedItems":{"type":"integer"}}), json!(["a", 1, 2]), json!(["a", 1, "b"]), true),
        (json!({"type":"array","prefixItems":[{"type":"string"}],"unevaluatedItems":false}), json!(["a"]), json!(["a", 1]), true),
    ] {
        let schema = json!({"type":"object","properties":{"t":node},"$defs":{"Pair":pair}});
        for (target, conv) in every_target(&schema) {
            let report = &conv.report.tools[0];
            assert!(report.changes.iter().any(|d| d.path == "/properties/t" && d.message.contains("unevaluatedItems")), "{target:?}: {node} {:?}", report.changes);
            let p = params(&conv);
            if gemini.contains(&target) {
                let reported = report.problems.iter().any(|d| d.rule == "gemini/closed-tuple");
                assert_eq!(reported, !in_gemini, "{target:?}: {node} {:?}", report.problems);
                // No tuples: a closed one is at most its length, each item any of its schemas.
                if in_gemini && node["unevaluatedItems"] == json!(false) {
                    assert_eq!(p["properties"]["t"]["maxItems"], json!(valid.as_array().unwrap().len().to_string()), "{target:?}: {p}");
                }
                continue;
            }
            assert!(!report.problems.iter().any(|d| d.message.contains("unevaluatedItems")), "{target:?}: {node} {:?}", report.problems);
            let args = |t: &Value| json!({ "t": t });
            assert!(toolwire::schema::validate::validate(p, &args(&valid)).is_empty(), "{target:?}: {valid} refused by {p}");
            assert!(!toolwire::schema::validate::validate(p, &args(&invalid)).is_empty(), "{target:?}: {invalid} taken by {p}");
        }
    }
    // `items` under an applicator evaluates every item: nothing is left for it to limit.
    let schema = json!({"type":"object","properties":{"t":{"type":"array","anyOf":[{"items":{"type":"string"}},{"items":{"type":"integer"}}],"unevaluatedItems":false}}});
    for (target, conv) in every_target(&schema) {
        assert!(conv.report.tools[0].problems.iter().all(|d| !d.message.contains("unevaluatedItems")), "{target:?}: {:?}", conv.report.tools[0].problems);
        assert!(!params(&conv).to_string().contains("\"items\":false"), "{target:?}");
    }
}

/// OpenAI strict, a `type` beside an `anyOf` whose branches say it: a `null` in the type that
/// no branch allows stays refused (the `anyOf` refused it), no `null` branch is added.
#[test]
fn strict_type_beside_any_of_adds_no_null_the_branches_refuse() {
    let schema = json!({"type":"object","properties":{"o":{"type":["object","null"],"anyOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}]}},"required":["o"]});
    for (target, conv) in every_target(&schema) {
        if matches!(target, Target::OpenAiStrict | Target::OpenAiResponsesStrict) {
            let o = &params(&conv)["properties"]["o"];
            assert!(!o.to_string().contains("\"null\""), "{target:?}: {o}");
        }
    }
}

/// OpenAI strict: the user's `additionalProperties: false` beside an `anyOf` that takes the
/// node's type is not dropped unreported: each branch is closed, and said so.
#[test]
fn strict_closed_node_beside_any_of_is_reported() {
    let schema = json!({"type":"object","properties":{"o":{"type":"object","additionalProperties":false,"anyOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},
        {"type":"object","properties":{"b":{"type":"integer"}},"required":["b"]}]}},"required":["o"]});
    for (target, conv) in every_target(&schema) {
        if matches!(target, Target::OpenAiStrict | Target::OpenAiResponsesStrict) {
            let o = &params(&conv)["properties"]["o"];
            for b in o["anyOf"].as_array().unwrap() {
                assert_eq!(b["additionalProperties"], json!(false), "{target:?}: {o}");
            }
            let changes = &conv.report.tools[0].changes;
            assert!(changes.iter().any(|d| d.message.contains("additionalProperties: false")), "{target:?}: {changes:?}");
        }
    }
}

/// OpenAI strict, an object with properties of its own beside an `anyOf` of object branches:
/// strict mode closes every branch, so the object's properties go into each branch, and an
/// argument that gives them and one branch's properties still matches. Closed by its author,
/// the object refuses a branch's property it does not declare: a branch that requires one is
/// removed.
#[test]
fn strict_object_properties_beside_any_of_go_into_the_branches() {
    let branches = json!([{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"b":{"type":"integer"}},"required":["b"]}]);
    let open = json!({"type":"object","properties":{"o":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"anyOf":branches}},"required":["o"]});
    let closed = json!({"type":"object","properties":{"o":{"type":"object","properties":{"name":{"type":"string"},"a":{"type":"string"}},"required":["name"],"additionalProperties":false,"anyOf":branches}},"required":["o"]});
    for (schema, good, bad) in [
        (&open, json!({"o":{"name":"n","a":"x"}}), json!({"o":{"a":"x"}})),
        (&closed, json!({"o":{"name":"n","a":"x"}}), json!({"o":{"name":"n","b":1}})),
    ] {
        for (target, conv) in every_target(schema) {
            if !matches!(target, Target::OpenAiStrict | Target::OpenAiResponsesStrict) {
                continue;
            }
            assert_eq!(conv.tools[0].pointer("/function/strict").or(conv.tools[0].get("strict")), Some(&json!(true)), "{target:?}");
            let p = params(&conv);
            assert!(toolwire::schema::validate::validate(p, &good).is_empty(), "{target:?}: {good} refused by {p}");
            assert!(!toolwire::schema::validate::validate(p, &bad).is_empty(), "{target:?}: {bad} accepted by {p}");
            let changes = &conv.report.tools[0].changes;
            assert!(changes.iter().any(|d| d.rule == "openai/strict-distribute" && d.path == "/properties/o"), "{target:?}: {changes:?}");
        }
    }
    // A nullable union: the null branch stays, the object branch gets the object's properties
    // (it was left alone, an outer object closed to `k` beside a branch closed to `x`: only null
    // could match).
    let nullable = json!({"type":"object","properties":{"o":{"type":["object","null"],"properties":{"k":{"type":"string"}},"anyOf":[{"properties":{"x":{"type":"string"}}},{"type":"null"}]}},"required":["o"]});
    for (target, conv) in every_target(&nullable) {
        if !matches!(target, Target::OpenAiStrict | Target::OpenAiResponsesStrict) {
            continue;
        }
        let p = params(&conv);
        for good in [json!({"o":{"k":"a","x":"b"}}), json!({"o":null})] {
            assert!(toolwire::schema::validate::validate(p, &good).is_empty(), "{target:?}: {good} refused by {p}");
        }
        assert!(!toolwire::schema::validate::validate(p, &json!({"o":{"x":"b"}})).is_empty(), "{target:?}: k not required in {p}");
    }
}

/// Below the root, an `allOf` whose branches limit a property (or the node itself) to enums
/// with no common value is a problem as at the root, at the JSON pointer of the node, on every
/// target and on the JSON API's pass-through path too.
#[test]
fn disjoint_enums_below_the_root_are_a_problem() {
    let schema = json!({"type":"object","properties":{
        "o":{"type":"object","allOf":[{"type":"object","properties":{"e":{"enum":["a","b"]},"x":{"type":"string"}}},{"type":"object","properties":{"e":{"enum":["c"]}}}]},
        "f":{"allOf":[{"enum":["a"]},{"const":"c"}]},
        "fine":{"type":"object","allOf":[{"properties":{"e":{"enum":["a","b"]}}},{"properties":{"e":{"enum":["b"]}}}]}}});
    for (target, conv) in every_target(&schema) {
        let problems = &conv.report.tools[0].problems;
        let found = |path: &str, word: &str| problems.iter().any(|d| d.rule == "schema/disjoint-values" && d.path == path && d.message.contains(word));
        assert!(found("/properties/o", "\"e\"") && found("/properties/o", "/properties/o/allOf/1/properties/e"), "{target:?}: {problems:?}");
        assert!(found("/properties/f", "no value"), "{target:?}: {problems:?}");
        assert!(!problems.iter().any(|d| d.path.starts_with("/properties/fine")), "{target:?}: {problems:?}");
    }
    let tools = json!([{ "name": "t", "inputSchema": schema }]).to_string();
    for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Bedrock] {
        let report = toolwire::convert::check_json(&tools, provider, &ConvertOptions::default()).unwrap();
        assert_eq!(report.tools[0].problems.iter().filter(|d| d.rule == "schema/disjoint-values").count(), 2, "{provider:?}: {:?}", report.tools[0].problems);
    }
}

/// A node that allows no value, however it comes to (an empty `enum`, as a real server sends
/// one, a `const` of another type, bounds that cross, a required property whose schema is
/// `false`), is a problem at its JSON pointer on every target, and through the JSON API's
/// pass-through path too (which leaves such a schema to the general path).
#[test]
fn nodes_that_allow_no_value_are_a_problem_everywhere() {
    let schema = json!({"type":"object","properties":{
        "kind":{"type":"string","enum":[],"description":"creation type"},
        "n":{"type":"integer","minimum":10,"maximum":5},
        "c":{"type":"string","const":5},
        "s":{"type":"string","minLength":4,"maxLength":3},
        "gone":false,
        "fine":{"type":"integer","minimum":5,"maximum":5}},
        "required":["kind","gone"]});
    let expected = ["/properties/gone", "/properties/kind", "/properties/n", "/properties/c", "/properties/s"];
    for (target, conv) in every_target(&schema) {
        let problems = &conv.report.tools[0].problems;
        let found: Vec<&str> = problems.iter().filter(|d| d.rule == "schema/disjoint-values").map(|d| d.path.as_str()).collect();
        assert_eq!(found, expected, "{target:?}: {problems:?}");
    }
    let tools = json!([{ "name": "t", "inputSchema": schema }]).to_string();
    for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Bedrock] {
        let report = toolwire::convert::check_json(&tools, provider, &ConvertOptions::default()).unwrap();
        let found: Vec<&str> = report.tools[0].problems.iter().filter(|d| d.rule == "schema/disjoint-values").map(|d| d.path.as_str()).collect();
        assert_eq!(found, expected, "{provider:?}: {:?}", report.tools[0].problems);
    }
    // Each alone, as the pass-through path meets it.
    for (name, property) in schema["properties"].as_object().unwrap() {
        let one = json!([{ "name": "t", "inputSchema": {"type":"object","properties":{name: property},"required":[name]} }]).to_string();
        let report = toolwire::convert::check_json(&one, Provider::OpenAi, &ConvertOptions::default()).unwrap();
        let count = report.tools[0].problems.iter().filter(|d| d.rule == "schema/disjoint-values").count();
        assert_eq!(count, usize::from(name != "fine"), "{name}: {:?}", report.tools[0].problems);
    }
}

/// Keywords that `allOf` branches both set combine as they would in one schema (the stricter
/// bound, the common values and types) where Gemini merges the `allOf` and the strict modes
/// merge one of objects: no conflict reported, nothing the branches forbid offered.
#[test]
fn all_of_branches_combine_for_gemini_and_strict_modes() {
    let schema = json!({"type":"object","properties":{
        "n":{"allOf":[{"type":"integer","minimum":1,"maximum":10},{"minimum":5}]},
        "e":{"allOf":[{"type":"string","enum":["a","b","c"]},{"enum":["b","c","d"]}]},
        "s":{"allOf":[{"type":"string","maxLength":10},{"maxLength":3}]},
        "v":{"allOf":[{"type":["string","null"]},{"type":"string"}]},
        "o":{"allOf":[{"type":"object","properties":{"a":{"type":"integer","maximum":9}},"required":["a"]},{"properties":{"a":{"type":"number","maximum":4}}}]}},
        "required":["n","e","s","v","o"]});
    for (target, conv) in every_target(&schema) {
        let report = &conv.report.tools[0];
        assert!(!report.problems.iter().any(|d| d.rule.ends_with("allof-conflict") || d.rule.ends_with("strict-fallback")), "{target:?}: {:?}", report.problems);
        let p = params(&conv);
        let text = p.to_string();
        let good = json!({"n":5,"e":"b","s":"abc","v":"x","o":{"a":4}});
        assert!(toolwire::schema::validate::validate(p, &good).is_empty() || target == Target::GeminiParameters, "{target:?}: {good} refused by {p}");
        if target == Target::GeminiParameters {
            let props = &p["properties"];
            assert_eq!(props["n"]["minimum"], json!(5), "{text}");
            assert_eq!(props["e"]["enum"], json!(["b","c"]), "{text}");
            assert!(props["s"]["maxLength"] == json!("3") || props["s"]["maxLength"] == json!(3), "{text}");
            assert!(props["v"].get("nullable").is_none(), "{text}");
            assert_eq!(props["o"]["properties"]["a"]["type"], json!("INTEGER"), "{text}");
            assert_eq!(props["o"]["properties"]["a"]["maximum"], json!(4), "{text}");
        }
    }
}

/// Gemini `parameters`: a value with no type (any value, `true`, an array's missing `items`)
/// accepts `null` too (`nullable`, on each branch for Vertex); a value that can only be `null`
/// is not widened to any value: a nullable string described as null, reported. The JSON API's
/// borrowed-tree lowering writes the same.
#[test]
fn gemini_any_value_is_nullable_and_null_is_not_any_value() {
    let schema = json!({"type":"object","properties":{"any":{"description":"anything"},"t":true,"arr":{"type":"array"},"nul":{"type":"null"},"nul2":{"anyOf":[{"type":"null"}]},"nul3":{"enum":[null]},"nul4":{"const":null},"s":{"type":"string"}}});
    let nullable = |v: &Value| v["nullable"] == json!(true) || v["anyOf"].as_array().is_some_and(|b| b.iter().all(|b| b["nullable"] == json!(true)));
    for (target, conv) in every_target(&schema) {
        if !matches!(target, Target::GeminiParameters | Target::Vertex) {
            continue;
        }
        let p = &params(&conv)["properties"];
        for any in [&p["any"], &p["t"], &p["arr"]["items"]] {
            assert!(any["anyOf"].is_array() && nullable(any), "{target:?}: {any}");
        }
        for nul in [&p["nul"], &p["nul2"], &p["nul3"], &p["nul4"]] {
            assert_eq!((nul["type"].as_str(), nul["nullable"].as_bool()), (Some("STRING"), Some(true)), "{target:?}: {nul}");
            assert!(nul["description"].as_str().unwrap().contains("null"), "{target:?}: {nul}");
        }
        assert!(p["s"].get("nullable").is_none(), "{target:?}");
        let problems = &conv.report.tools[0].problems;
        for path in ["/properties/nul", "/properties/nul2", "/properties/nul3", "/properties/nul4"] {
            assert!(problems.iter().any(|d| d.rule == "gemini/null-only" && d.path == path), "{target:?}: {problems:?}");
        }
    }
    let tools = json!([{ "name": "t", "inputSchema": schema }]);
    for provider in [Provider::Gemini, Provider::Vertex] {
        let general = convert(tools.clone(), provider, &ConvertOptions::default()).unwrap().tools.to_string();
        assert_eq!(toolwire::convert::convert_json(&tools.to_string(), provider, &ConvertOptions::default()).unwrap(), general, "{provider:?}");
    }
}

/// Gemini `parameters`, an object's `anyOf` below the root: Gemini takes `anyOf` there, so each
/// branch stays one (with the object's own properties), where merging them into the object lost
/// what each branch requires and a branch's open property (one branch's enum was kept for it).
#[test]
fn gemini_nested_unions_keep_every_branch() {
    let schema = json!({"type":"object","required":["p0"],"properties":{"p0":{"type":"object","properties":{"x":{"type":"string"}},"anyOf":[
        {"properties":{"kind":{"type":"string","enum":["k0"]},"p":{"enum":["a","b"]}},"required":["kind","p"]},
        {"properties":{"kind":{"type":"string","enum":["k1"]},"p":{}},"required":["kind"]}]}}});
    for (target, conv) in every_target(&schema) {
        if !matches!(target, Target::GeminiParameters | Target::Vertex) {
            continue;
        }
        let p0 = &params(&conv)["properties"]["p0"];
        let branches = p0["anyOf"].as_array().unwrap_or_else(|| panic!("{target:?}: {p0}"));
        assert_eq!(branches.len(), 2, "{target:?}: {p0}");
        assert_eq!(branches[0]["required"], json!(["kind", "p"]), "{target:?}: {p0}");
        assert!(branches[1]["properties"]["p"].get("enum").is_none() && branches[1]["properties"]["p"]["anyOf"].is_array(), "{target:?}: {p0}");
        assert!(branches.iter().all(|b| b["properties"]["x"]["type"] == "STRING"), "{target:?}: {p0}");
    }
}

/// [`every_target`] and Ollama (whose output is OpenAI Chat's wrapper, checked as such).
fn every_target_and_ollama(schema: &Value) -> Vec<(String, Conversion)> {
    let mut all: Vec<(String, Conversion)> = every_target(schema).into_iter().map(|(t, c)| (format!("{t:?}"), c)).collect();
    let tools = json!([{ "name": "t", "description": "d", "inputSchema": schema }]);
    let conv = convert(tools, Provider::Ollama, &ConvertOptions::default()).unwrap();
    let v = validate(Target::OpenAi, &conv.tools);
    assert!(v.is_empty(), "ollama: {v:?}\ninput: {schema}\noutput: {}", conv.tools);
    all.push(("Ollama".into(), conv));
    all
}

/// A removed keyword whose value is an object but no schema (OpenAPI's `discriminator` and
/// `externalDocs`) is described as what it says, not as "any", and the `components` that held
/// the inlined references is removed with a report and no note (s29f F1).
#[test]
fn removed_object_keywords_that_are_not_schemas_say_what_they_hold() {
    let cat = json!({"type":"object","properties":{"kind":{"const":"cat"}},"required":["kind"]});
    let dog = json!({"type":"object","properties":{"kind":{"const":"dog"}},"required":["kind"]});
    let schema = json!({"type":"object","properties":{
        "pet":{"oneOf":[{"$ref":"#/components/schemas/Cat"},{"$ref":"#/components/schemas/Dog"}],
            "discriminator":{"propertyName":"kind","mapping":{"cat":"#/components/schemas/Cat","dog":"#/components/schemas/Dog"}}},
        "link":{"type":"string","externalDocs":{"url":"https://example.com/doc","description":"how links work"}}},
        "required":["pet","link"],"components":{"schemas":{"Cat":cat,"Dog":dog}}});
    let mut described = 0;
    for (target, conv) in every_target_and_ollama(&schema) {
        let out = conv.tools.to_string();
        assert!(!out.contains(": any"), "{target}: {out}");
        assert!(!out.contains("(components"), "{target}: {out}");
        let changes = &conv.report.tools[0].changes;
        let said = |what: &str| changes.iter().any(|d| d.message.contains(what));
        if said("`discriminator`") {
            described += 1;
            assert!(out.contains(r#"discriminator: property \"kind\" (\"cat\": Cat, \"dog\": Dog)"#), "{target}: {out}");
            assert!(out.contains("externalDocs: https://example.com/doc (how links work)"), "{target}: {out}");
            assert!(said("`components`"), "{target}: {changes:?}");
        }
    }
    // OpenAI strict (Chat and Responses), Claude's, Gemini, Vertex, Ollama.
    assert_eq!(described, 7);
}

/// `examples` of several values: each is described where the keyword is removed (OpenAI strict,
/// Ollama), where only the first was and the others went unsaid (s29f F2).
#[test]
fn removed_examples_keep_every_value() {
    let schema = json!({"type":"object","properties":{"unit":{"type":"string","examples":["celsius","fahrenheit","kelvin"]}},"required":["unit"]});
    let mut removed = 0;
    for (target, conv) in every_target_and_ollama(&schema) {
        let changes = &conv.report.tools[0].changes;
        if changes.iter().any(|d| d.message.starts_with("`examples` is not")) {
            removed += 1;
            let out = conv.tools.to_string();
            assert!(out.contains(r#"(examples: \"celsius\", \"fahrenheit\", \"kelvin\")"#), "{target}: {out}");
        }
        assert!(conv.tools.to_string().contains("kelvin"), "{target}: {}", conv.tools);
    }
    // OpenAI strict (Chat and Responses), Ollama.
    assert_eq!(removed, 3);
}
