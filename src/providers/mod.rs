//! One module per provider. Each takes the normalised root schema from
//! [`crate::schema::process_json_schema`] and lowers it to what that provider accepts; each
//! module's doc comment lists its transform steps in order.

pub mod anthropic;
pub mod bedrock;
pub mod gemini;
pub mod keys;
pub mod ollama;
pub mod openai;

use serde_json::{Map, Value};

use crate::args::ArgPlan;
use crate::error::{Error, ErrorCode, Result};
use crate::naming::NameRule;
use crate::schema::lower::{is_array_node, is_object_node};
use crate::model::{JsonObject, Keyed as _, Put as _, Take as _};
use crate::schema::evaluated::{evaluated_items, referenced_prefix, Evaluated};
use crate::schema::walk::{contains_keyword, contains_ref, for_each_subschema_mut, keyword, Keyword};
use crate::schema::refs::Shared;
use crate::schema::{fix_properties_and_required, short_json, Cx, Limits};
use crate::text::Owned as _;

/// The providers toolwire converts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions: `[{type:"function", function:{...}}]`.
    OpenAi,
    /// OpenAI Responses: `[{type:"function", name, ..., strict}]`.
    OpenAiResponses,
    /// Anthropic Messages: `[{name, description, input_schema}]`.
    Anthropic,
    /// Gemini API: `[{functionDeclarations:[...]}]`.
    Gemini,
    /// Vertex AI Gemini: as Gemini, plus "a node with anyOf has no other field".
    Vertex,
    /// AWS Bedrock Converse: `[{toolSpec:{name, description, inputSchema:{json}}}]`.
    Bedrock,
    /// Ollama's `/api/chat`: OpenAI Chat's wrapper, with only what Ollama's structs keep of
    /// each schema (see [`ollama`]).
    Ollama,
}

/// A provider as an app names it: what its tools are converted for (`provider`) and what it is
/// called (`name`, canonical: `"openai"` for `"openai-chat"`). A hub keeps a name map per target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// What the tools are converted for.
    pub provider: Provider,
    /// The target's canonical name (`"openai"` for `"openai-chat"`).
    pub name: &'static str,
}

impl From<Provider> for Target {
    fn from(provider: Provider) -> Self {
        Self { provider, name: provider.as_str() }
    }
}

impl Provider {
    /// Every provider, for tests and tooling.
    pub const ALL: [Provider; 7] =
        [Self::OpenAi, Self::OpenAiResponses, Self::Anthropic, Self::Gemini, Self::Vertex, Self::Bedrock, Self::Ollama];

    /// Parses the JS provider string.
    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "openai" | "openai-chat" => Self::OpenAi,
            "ollama" => Self::Ollama,
            "openai-responses" => Self::OpenAiResponses,
            "anthropic" => Self::Anthropic,
            "gemini" | "google" => Self::Gemini,
            "vertex" => Self::Vertex,
            "bedrock" => Self::Bedrock,
            other => return Err(Error::new(ErrorCode::UnknownProvider, crate::error::unknown_provider(other, &["openai", "openai-responses", "anthropic", "gemini", "vertex", "bedrock", "ollama"]))),
        })
    }

    /// The provider an app names, as [`Target`].
    pub fn target(s: &str) -> Result<Target> {
        Self::parse(s).map(Target::from)
    }

    /// The canonical string.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::OpenAiResponses => "openai-responses",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
            Self::Vertex => "vertex",
            Self::Bedrock => "bedrock",
            Self::Ollama => "ollama",
        }
    }

    /// The provider's function-name rule. Vertex AI's is the Gemini API's, `:` included: its
    /// `FunctionDeclaration` reference and its errors since late 2025 name the same characters
    /// (its errors before then left `:` out). Ollama documents none: OpenAI's, whose tools it takes.
    pub fn name_rule(self) -> NameRule {
        match self {
            Self::Gemini | Self::Vertex => NameRule::Gemini,
            _ => NameRule::Strict,
        }
    }

    /// Whether the provider has a strict mode (`strict: true` asks for it): OpenAI's (Chat and
    /// Responses) or Claude's (Anthropic, Bedrock).
    pub(crate) fn has_strict(self) -> bool {
        matches!(self, Self::OpenAi | Self::OpenAiResponses) || self.claude_strict().is_some()
    }

    /// For the providers whose strict mode is Claude's (Anthropic, Bedrock): the names its
    /// reports use. Their schemas, strict or not, are compiled alike.
    pub(crate) fn claude_strict(self) -> Option<&'static anthropic::Rules> {
        match self {
            Self::Anthropic => Some(&anthropic::ANTHROPIC),
            Self::Bedrock => Some(&bedrock::RULES),
            _ => None,
        }
    }

    /// The most tools the provider is known to accept in one request, if limited.
    pub fn max_tools(self) -> Option<(usize, &'static str)> {
        match self {
            Self::OpenAi | Self::OpenAiResponses => Some((128, "OpenAI is widely reported to accept at most 128 tools")),
            Self::Gemini | Self::Vertex => Some((512, "Gemini accepts at most 512 function declarations")),
            _ => None,
        }
    }
}

/// Which Gemini field carries the schema.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum GeminiMode {
    /// `parameters`: the OpenAPI-3.0 subset (the default; every Gemini front-end takes it).
    #[default]
    Parameters,
    /// `parametersJsonSchema`: raw JSON Schema, with a smaller rule set.
    JsonSchema,
}

/// Options that shape schema compilation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SchemaOptions {
    /// Strict mode (OpenAI Structured Outputs, Anthropic's and Bedrock's strict tool use).
    pub strict: bool,
    /// Gemini's schema field.
    pub gemini_mode: GeminiMode,
    /// Limits.
    pub limits: Limits,
}

/// A compiled schema for one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled {
    /// The schema, or `None` when the provider is better off without one (a Gemini tool with
    /// no parameters).
    pub schema: Option<Value>,
    /// Whether the tool is strict (for providers with a strict mode and when it was asked for).
    pub strict: Option<bool>,
    /// How to map the model's arguments back.
    pub plan: ArgPlan,
    /// Anthropic and Bedrock strict: the schema without strict mode, for a tool that Claude's
    /// set-level limits leave out of strict mode (see `anthropic::MAX_STRICT_TOOLS`).
    pub relaxed: Option<Relaxed>,
}

/// A strict tool's schema without strict mode, and how to report it instead.
#[derive(Debug, Clone, PartialEq)]
pub struct Relaxed {
    /// The schema (`null` on the pass-through path: written from the input then).
    pub schema: Value,
    /// How many of the tool's last changes and problems the strict attempt made: a tool sent
    /// without strict did not have them.
    pub strict_changes: usize,
    /// See `strict_changes`.
    pub strict_problems: usize,
}

/// The outcome of a strict attempt (a strict schema, or why the schema cannot be strict), with
/// a limit met on the way (`LIMIT_EXCEEDED`: nesting or nodes past `limits`, which the strict
/// form, its references inlined and its optionals wrapped, may reach where the schema as it is
/// does not) one more reason to send that one tool without strict rather than refuse it, and
/// with it the whole list. The reason is the phrase the fallback's problem starts with. Any
/// other error stands.
pub(crate) fn strict_or_why<T>(attempt: Result<std::result::Result<T, String>>) -> Result<std::result::Result<T, String>> {
    Ok(match attempt {
        Ok(Ok(strict)) => Ok(strict),
        Ok(Err(reason)) => Err(format!("cannot be strict without changing its meaning ({reason})")),
        Err(e) if e.code == ErrorCode::LimitExceeded => {
            let at = e.path.as_deref().map(|p| format!(" at {}", crate::error::display_path(p))).unwrap_or_default();
            Err(format!("cannot be strict within the limits ({}{at})", e.message))
        }
        Err(e) => return Err(e),
    })
}

/// Lowers a normalised root schema for `provider`.
pub fn compile(provider: Provider, root: Value, opts: &SchemaOptions, cx: &mut Cx) -> Result<Compiled> {
    match provider {
        Provider::OpenAi | Provider::OpenAiResponses => openai::compile(root, opts, cx),
        Provider::Anthropic => anthropic::compile(root, opts, cx),
        Provider::Gemini => gemini::compile(root, opts, false, cx),
        Provider::Vertex => gemini::compile(root, opts, true, cx),
        Provider::Bedrock => bedrock::compile(root, opts, cx),
        Provider::Ollama => ollama::compile(root, opts, cx),
    }
}

/// Values in subschema positions that are not schemas (`items: "string"`, `anyOf: {}`,
/// `properties: {a: "x"}`) become `{}` (any value) or are removed, and so is a list of schemas
/// with none in it (`anyOf: []`); each is reported.
fn fix_subschema_slots(obj: &mut JsonObject, cx: &mut Cx) -> Result<()> {
    // Most nodes need nothing: find out without copying a key.
    let schemas = |v: &Value| v.is_object() || v.is_boolean();
    let needs_fix = obj.iter().any(|(k, v)| match (keyword(k), v) {
        (Keyword::Other, _) => false,
        (Keyword::Map, Value::Object(m)) => !m.values().all(schemas),
        (Keyword::Array, Value::Array(a)) => a.is_empty() || !a.iter().all(schemas),
        (Keyword::Items, Value::Array(a)) => !a.iter().all(schemas),
        (Keyword::Single | Keyword::Items, v) => !schemas(v),
        _ => true,
    });
    if !needs_fix {
        return Ok(());
    }
    let keys: Vec<String> = obj.keys().cloned().collect();
    for key in keys {
        let kw = keyword(&key);
        let is_map = kw == Keyword::Map;
        let is_array = kw == Keyword::Array;
        let is_single = matches!(kw, Keyword::Single | Keyword::Items);
        if !(is_map || is_array || is_single) {
            continue;
        }
        let Some(value) = obj.get_mut(&key) else { continue };
        // `anyOf: []`: a list of schemas has at least one.
        if is_array && value.as_array().is_some_and(Vec::is_empty) {
            obj.remove(&key);
            cx.at(&key, |cx| {
                cx.change("schema/bad-keyword-value", format!("`{key}` was [], not a non-empty list of schemas; removed"));
                Ok(())
            })?;
            continue;
        }
        let shape_ok = match value {
            Value::Object(_) => is_map || is_single,
            Value::Array(_) => is_array || key == "items",
            Value::Bool(_) => is_single,
            _ => false,
        };
        if !shape_ok {
            let was = crate::model::json_type(value);
            if key == "properties" {
                continue; // replaced by `{}` on object nodes (fix_properties_and_required), else removed (fix_node)
            }
            obj.remove(&key);
            cx.at(&key, |cx| {
                cx.change("schema/bad-subschema", format!("`{key}` was {was}, not a schema; removed"));
                Ok(())
            })?;
            continue;
        }
        let mut bad = Vec::new();
        match value {
            Value::Object(map) if is_map => {
                for (name, sub) in map.iter_mut() {
                    if !sub.is_object() && !sub.is_boolean() {
                        bad.push((name.clone(), crate::model::json_type(sub)));
                        *sub = Value::Object(Map::new());
                    }
                }
            }
            Value::Array(items) => {
                for (i, sub) in items.iter_mut().enumerate() {
                    if !sub.is_object() && !sub.is_boolean() {
                        bad.push((i.to_string(), crate::model::json_type(sub)));
                        *sub = Value::Object(Map::new());
                    }
                }
            }
            _ => {}
        }
        for (name, was) in bad {
            cx.at(&key, |cx| {
                cx.at(&name, |cx| {
                    cx.change("schema/bad-property-schema", format!("schema was {was}; replaced by {{}} (any value)"));
                    Ok(())
                })
            })?;
        }
    }
    Ok(())
}

/// [`fix_structure`] on shared expansion `i`, which `node` stands for (see [`Shared::rewrite`]).
fn fix_shared(node: &mut Value, i: usize, cx: &mut Cx) -> Result<()> {
    let fix = &mut |mut expanded: Value, cx: &mut Cx| {
        fix_structure(&mut expanded, cx)?;
        Ok((Some(expanded), ArgPlan::default()))
    };
    *node = Shared::rewrite(cx, i, fix, crate::schema::refs::write_schema)?.0.unwrap_or_default();
    Ok(())
}

/// [`fix_structure`] on a root schema; where it rewrote draft 4's forms in draft 2020-12's
/// (a tuple `items: [..]` as `prefixItems`), or draft 3's keywords were
/// (`schema::rewrite_draft3`: `divisibleBy`, `extends`, `disallow`), a root `$schema` naming
/// draft 3 to 7 goes, or it
/// would have the rewritten keywords read its way (`prefixItems` unknown, `items: false` "no
/// items"): without `$schema` a schema is read as draft 2020-12.
pub fn fix_root_structure(root: &mut Value, cx: &mut Cx) -> Result<()> {
    let before = cx.changes.len();
    // The `$ref` targets an `unevaluatedItems` may need looked up (see [`add_items`]), as
    // written: the walk adds `items` to them as it goes.
    let document = (contains_keyword(root, "unevaluatedItems", 0) && contains_ref(root, 0)).then(|| root.clone());
    fix_node(root, document.as_ref(), cx)?;
    // Draft 3's own keywords are rewritten before any provider step (`schema::rewrite_draft3`).
    if !cx.changes[before..].iter().any(|d| d.rule.starts_with("schema/draft4-")) && !cx.changes.iter().any(|d| d.rule == "schema/draft3-keyword") {
        return Ok(());
    }
    if let Value::Object(o) = root {
        if o.find("$schema").and_then(Value::as_str).is_some_and(crate::schema::names_draft_3_to_7) {
            o.take("$schema");
            cx.change("schema/draft4-schema", "`$schema` of draft 3 to 7 removed: the schema is rewritten in draft 2020-12's terms, as a schema without `$schema` is read");
            if contains_keyword(root, "dependencies", 0) {
                split_dependencies(root, cx, 0)?;
            }
        }
    }
    Ok(())
}

/// Draft 3 to 7's `dependencies`, which draft 2020-12 no longer reads, in its two 2020-12
/// forms: a list of names (or draft 3's one name, a string) is a `dependentRequired` entry, a
/// schema (an object or a boolean) a `dependentSchemas` one (where the node has those too, both
/// hold: names united, schemas under `allOf`). Any other value was never valid in any draft and
/// goes, reported: as a `dependentSchemas` entry it would make the schema invalid.
fn split_dependencies(node: &mut Value, cx: &mut Cx, depth: usize) -> Result<()> {
    if depth > 512 {
        return Ok(());
    }
    let Value::Object(obj) = node else { return Ok(()) };
    if let Some(Value::Object(deps)) = obj.find("dependencies") {
        let deps = deps.clone();
        obj.take("dependencies");
        for (name, dep) in deps {
            let names = match dep {
                Value::String(one) => vec![Value::String(one)],
                Value::Array(names) => names,
                mut schema @ (Value::Object(_) | Value::Bool(_)) => {
                    // Not walked as a subschema under `dependencies`: its structure now.
                    cx.at("dependentSchemas", |cx| cx.at(&name, |cx| fix_structure(&mut schema, cx)))?;
                    let slot = obj.entry("dependentSchemas").or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(m) = slot {
                        let joined = match m.remove(&name) {
                            Some(mine) => crate::model::object([("allOf", Value::Array(vec![mine, schema]))]),
                            None => schema,
                        };
                        m.insert(name, joined);
                    }
                    continue;
                }
                other => {
                    let message = format!("`dependencies` entry {} is {}, neither a list of names nor a schema (in no draft); removed", crate::text::to_string(&Value::String(name.clone())), crate::model::json_type(&other));
                    cx.at("dependencies", |cx| {
                        cx.change("schema/draft4-dependencies", message);
                        Ok(())
                    })?;
                    continue;
                }
            };
            let slot = obj.entry("dependentRequired").or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(m) = slot {
                match m.get_mut(&name) {
                    Some(Value::Array(mine)) => mine.extend(names.into_iter().filter(|n| !mine.contains(n)).collect::<Vec<_>>()),
                    _ => {
                        m.insert(name, Value::Array(names));
                    }
                }
            }
        }
        cx.change("schema/draft4-dependencies", "`dependencies` (draft 3 to 7) written as `dependentRequired` (names) and `dependentSchemas` (schemas), as draft 2020-12 reads them");
    }
    for_each_subschema_mut(obj, cx, &mut |sub, cx| split_dependencies(sub, cx, depth + 1))
}

/// The structural clean-up that every JSON-Schema-speaking provider gets, on every node:
/// property values that are not schemas become `{}` (reported); object nodes get `properties`
/// and a `required` that names only existing properties, and on other nodes a `properties`
/// that is no object or a `required` that is no list of names (draft 3's `required: true`
/// where no object reads it) goes (reported);
/// array nodes without `items` get
/// `items: {}` (any value), or what their `unevaluatedItems` says: `add_items`.
pub fn fix_structure(node: &mut Value, cx: &mut Cx) -> Result<()> {
    fix_node(node, None, cx)
}

/// [`fix_structure`], with `$ref`s looked up in `document` (the root as written) where
/// [`add_items`] needs them.
fn fix_node(node: &mut Value, document: Option<&Value>, cx: &mut Cx) -> Result<()> {
    let Value::Object(obj) = node else { return Ok(()) };
    if cx.shared.is_some() {
        if let Some(i) = Shared::placeholder(obj) {
            return fix_shared(node, i, cx);
        }
    }
    cx.enter()?;
    crate::schema::normalize_type(obj, cx);
    crate::schema::normalize_draft4(obj, cx);
    if obj.find("$ref").is_some_and(|r| !r.is_string()) {
        obj.take("$ref");
        cx.change("schema/bad-ref", "`$ref` was not a string; removed");
    }
    fix_subschema_slots(obj, cx)?;
    if is_object_node(obj) {
        fix_properties_and_required(obj, cx);
    } else {
        // A `properties` that is no object is refused by the meta-schema whatever the node's
        // type, and Ollama fails the whole request on it: removed here, where an object node has
        // it replaced by `{}`.
        if let Some(p) = obj.find("properties").filter(|p| !p.is_object()) {
            let message = format!("`properties` was {}, not an object; removed", crate::model::json_type(p));
            obj.take("properties");
            cx.at("properties", |cx| {
                cx.change("schema/bad-properties", message);
                Ok(())
            })?;
        }
        if let Some(r) = obj.find("required").filter(|r| !r.as_array().is_some_and(|a| a.iter().all(Value::is_string))) {
            // Draft 3's `required: true` where no parent reads it (not a property's schema), or
            // no list of names at all.
            let message = format!("`required` was {}, not a list of names; removed", short_json(r));
            obj.take("required");
            cx.at("required", |cx| {
                cx.change("schema/bad-keyword-value", message);
                Ok(())
            })?;
        }
    }
    crate::schema::fix_keyword_values(obj, cx);
    if is_array_node(obj) && !obj.has("items") {
        add_items(obj, document, cx);
    }
    let r = for_each_subschema_mut(obj, cx, &mut |sub, cx| fix_node(sub, document, cx));
    cx.leave();
    r
}

/// The keywords beside `unevaluatedItems` that may evaluate items too.
const EVALUATING: &[&str] = &["$ref", "$dynamicRef", "contains", "allOf", "anyOf", "oneOf", "if", "dependentSchemas"];

/// `items` for an array node without: OpenAI refuses an array schema without `items` ("array
/// schema missing items"), a tuple's (`prefixItems` alone) too. `items: {}` says what its
/// absence says (any item, or any item past the tuple), unless an `unevaluatedItems` says what
/// the items no other keyword evaluates may be: where those others evaluate a prefix known
/// from the schema ([`evaluated_items`], its `$ref`s looked up in `document`), `items` after
/// that prefix says it (the prefix written out as `prefixItems` where the node's own is
/// shorter); where they evaluate every item it limits nothing; where the instance decides
/// (`contains`, differing union branches), `items: {}` leaves it nothing to limit, reported.
fn add_items(obj: &mut JsonObject, document: Option<&Value>, cx: &mut Cx) {
    let any = || Value::Object(Map::new());
    let Some(rest) = obj.find("unevaluatedItems").filter(|u| u.is_object() || u.is_boolean()).cloned() else {
        let message = match obj.has("prefixItems") {
            true => "tuple (`prefixItems`) without `items`: added `items: {}` (the items past the tuple: any value, as before)",
            false => "array without `items`: added `items: {}` (any value)",
        };
        obj.put("items", any());
        cx.change("schema/add-items", message);
        return;
    };
    let own = obj.find("prefixItems").and_then(Value::as_array).map_or(0, Vec::len);
    let beside = EVALUATING.iter().find(|k| obj.has(k)).copied();
    let u = short_json(&rest);
    match (evaluated_items(obj, document), beside) {
        (Evaluated::Prefix(n), k) if n > own => {
            let k = k.unwrap_or("allOf");
            // Past the node's own tuple, the entries inlining `$ref` would give (its own
            // `prefixItems` overlays the target's), else any value: `k` constrains those items.
            let referenced: Vec<Value> = referenced_prefix(obj, document).iter().skip(own).take(n - own).cloned().collect();
            let mut prefix = match obj.take("prefixItems") {
                Some(Value::Array(p)) => p,
                _ => Vec::new(),
            };
            prefix.extend((own..n).map(|i| referenced.get(i - own).cloned().unwrap_or_else(any)));
            obj.put("prefixItems", Value::Array(prefix));
            obj.put("items", rest);
            cx.change(
                "schema/add-items",
                format!("array without `items` beside `{k}` and `unevaluatedItems`: `{k}` evaluates the first {}, so `unevaluatedItems: {u}` says what the items past {} may be: written as `prefixItems` of {n} and `items`", if n == 1 { "item".owned() } else { format!("{n} items") }, if n == 1 { "it" } else { "them" }),
            );
        }
        (Evaluated::Prefix(_), _) => {
            obj.put("items", rest);
            cx.change("schema/add-items", "array without `items`: added `items` as its `unevaluatedItems` (what the items past any tuple may be)");
        }
        (Evaluated::All, _) => {
            obj.put("items", any());
            let k = ["$ref", "allOf", "anyOf", "oneOf", "if"].into_iter().find(|k| obj.has(k)).unwrap_or("allOf");
            cx.change("schema/add-items", format!("array without `items`: added `items: {{}}` (any value); `items` under `{k}` evaluates every item, which leaves `unevaluatedItems: {u}` none to limit, as before"));
        }
        (Evaluated::Unknown, k) => {
            obj.put("items", any());
            let k = k.unwrap_or("prefixItems");
            cx.change("schema/add-items", "array without `items`: added `items: {}` (any value)");
            cx.problem(
                "schema/add-items",
                format!("array without `items` beside `{k}` and `unevaluatedItems`: added `items: {{}}` (any value), which leaves `unevaluatedItems: {u}` nothing to limit; the items it limited are not limited"),
            );
        }
    }
}
