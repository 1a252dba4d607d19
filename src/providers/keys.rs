//! Property keys (the names in `properties`) that a provider refuses.
//!
//! **Claude** (Anthropic, and Bedrock, whose Converse API passes Claude's validator through)
//! refuses the whole request, every tool in it, when one tool's top-level `properties` has a key
//! outside `^[a-zA-Z0-9_.-]{1,64}$`: `tools.N.custom.input_schema.properties: Property keys should
//! match pattern '^[a-zA-Z0-9_.-]{1,64}$'` (HTTP 400; `ValidationException` on Bedrock). OData's
//! `$filter` and `@odata.type`, `filter[id]`, `Account Number`, a non-ASCII letter, an empty key
//! and one over 64 characters all are. [`rename_top_level`] renames such keys, one rule for all:
//!
//! 1. A leading `$` becomes `dollar_`, a leading `@` `at_` (`$top` → `dollar_top`,
//!    `@odata.type` → `at_odata.type`), as Composio's sanitiser spells them: what a model reads.
//! 2. Every other character outside `[a-zA-Z0-9_.-]` becomes `_`, one for each character
//!    (`filter[id]` → `filter_id_`, `Account Number` → `Account_Number`, `café` → `caf_`).
//! 3. The empty key becomes `unnamed`.
//! 4. A key still over 64 characters keeps its first 55 and gets `_` and a hash of the whole
//!    key (8 characters, the stable hash of tool names): two long keys that share their first
//!    55 characters stay apart.
//! 5. A name another key of the object has (one kept as it is, or one renamed before it, in the
//!    schema's order) gets `_2`, `_3`... (the name cut to fit 64).
//!
//! The renamed property keeps its schema; its description says the server's key (`(sent to the
//! server as "$top")`), which the tool's own description may use (the property's alone: a `$ref`
//! to it as a whole, a value of that schema under another key, is pointed at a copy without
//! the note, in `$defs`). `required`,
//! `dependentRequired` (keys and names) and `dependentSchemas` (keys) follow, on the root and in
//! the subschemas that describe the same object (`allOf`/`anyOf`/`oneOf` branches, `not`,
//! `if`/`then`/`else`, `dependentSchemas`), and so do `$ref`s to `#/properties/<key>`;
//! `patternProperties` and `propertyNames`, on the root and in those subschemas, are made to
//! hold for the new keys as they did for the server's, or the place is reported where that
//! cannot be told ([`name_keywords`]). The
//! argument plan records the names for that object only ([`ArgPlan::renamed`]), and for the
//! objects a `$ref: "#"` makes of the root, however reached (any subschema position, through
//! definitions; see [`RootReferences`]), so that `prepareArguments` gives the server its own
//! keys. Each rename is a change (`anthropic/property-renamed`, `bedrock/property-renamed`),
//! naming both keys; a root reference no plan can place (under `patternProperties` or
//! `contains`) is a problem under the same rule.
//!
//! Keys below the top level are neither renamed nor reported: every rejection seen names
//! `input_schema.properties`, and two sources (a Bedrock IDP issue, decocms/studio#6874) say
//! nested keys are accepted; the corpus's nested `$vectorSearch` and `$meta` (mongodb) are sent
//! as they are.
//!
//! **Gemini** `parameters` (Gemini API and Vertex AI): Vertex's reference and Google's SDKs
//! document that parameter names "must start with a letter or an underscore and must only
//! contain chars a-z, A-Z, 0-9, or underscores with a maximum length of 64". No rejection for a
//! property name has been seen, so keys are not renamed; each key outside that rule, at any
//! depth, is a `gemini/property-name` problem that says so and names `parametersJsonSchema`,
//! which documents no such rule. OpenAI and `parametersJsonSchema`: no rule, nothing done.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::args::{ArgPlan, Fit, PropertyPlans};
use crate::model::{string, JsonObject, Keyed as _};
use crate::schema::walk::{slot, Slot};
use crate::schema::{append_description, Cx};
use crate::text::Owned as _;

/// The most characters Claude takes in a property key.
pub const MAX_CLAUDE_KEY: usize = 64;
/// What the empty key becomes.
pub const EMPTY_KEY: &str = "unnamed";

/// Whether Claude takes `key` as a top-level property key: `^[a-zA-Z0-9_.-]{1,64}$`.
pub fn claude_key_ok(key: &str) -> bool {
    (1..=MAX_CLAUDE_KEY).contains(&key.len()) && key.bytes().all(claude_char)
}

fn claude_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

/// Whether `key` is a parameter name as Gemini documents them: `^[A-Za-z_][A-Za-z0-9_]{0,63}$`.
pub fn gemini_key_ok(key: &str) -> bool {
    let b = key.as_bytes();
    (1..=64).contains(&b.len()) && (b[0].is_ascii_alphabetic() || b[0] == b'_') && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// The key Claude is given for `key` (rules 1 to 4 of the module), before collisions; `key`
/// itself when Claude takes it.
pub fn claude_key(key: &str) -> String {
    if claude_key_ok(key) {
        return key.owned();
    }
    if key.is_empty() {
        return EMPTY_KEY.owned();
    }
    let (head, rest) = match key.as_bytes()[0] {
        b'$' => ("dollar_", &key[1..]),
        b'@' => ("at_", &key[1..]),
        _ => ("", key),
    };
    let mut out = String::with_capacity(head.len() + rest.len());
    out.push_str(head);
    out.extend(rest.chars().map(|c| if c.is_ascii() && claude_char(c as u8) { c } else { '_' }));
    if out.len() > MAX_CLAUDE_KEY {
        let hash = crate::naming::key_hash(key);
        // ASCII by construction: bytes are characters.
        out.truncate(MAX_CLAUDE_KEY - hash.len() - 1);
        out.push('_');
        out.push_str(&hash);
    }
    out
}

/// `base`, or `base_2`, `base_3`... (cut to fit), the first that `taken` does not hold.
/// `next`: per base, the suffix to try first (those below it are taken, and `taken` only
/// grows), so that the i-th of many keys that clean to one name costs a probe or two, not i.
/// `probes`: how many names were tried.
fn unique(base: String, taken: &HashSet<String>, next: &mut HashMap<String, usize>, probes: &mut usize) -> String {
    *probes += 1;
    if !taken.contains(&base) {
        return base;
    }
    let mut n = next.get(&base).copied().unwrap_or(2);
    loop {
        *probes += 1;
        let suffix = format!("_{n}");
        let mut name = base.clone();
        name.truncate(MAX_CLAUDE_KEY - suffix.len());
        name.push_str(&suffix);
        n += 1;
        if !taken.contains(&name) {
            next.insert(base, n);
            return name;
        }
    }
}

/// The new names of the keys of `properties` that Claude refuses: `(new, original)`, in the
/// schema's order (rule 5 of the module for collisions). Linear in the keys (a schema may
/// have thousands), also when many clean to the same name.
pub fn claude_renames<'k>(keys: impl Iterator<Item = &'k str> + Clone) -> Vec<(String, String)> {
    renames_counted(keys).0
}

/// [`claude_renames`], and how many names it tried.
fn renames_counted<'k>(keys: impl Iterator<Item = &'k str> + Clone) -> (Vec<(String, String)>, usize) {
    let mut taken: HashSet<String> = keys.clone().filter(|k| claude_key_ok(k)).map(str::to_owned).collect();
    let (mut next, mut probes) = (HashMap::new(), 0);
    let mut renamed = Vec::new();
    for key in keys.filter(|k| !claude_key_ok(k)) {
        let new = unique(claude_key(key), &taken, &mut next, &mut probes);
        taken.insert(new.clone());
        renamed.push((new, key.owned()));
    }
    (renamed, probes)
}

/// Diagnostics made on the renamed schema (strict mode's steps, unresolvable references) point
/// into the input schema as given: a path through a renamed root property names the server's
/// key (`/properties/dollar_top/x` is `/properties/$top/x`).
pub(crate) fn paths_to_server_keys(diagnostics: &mut [crate::report::Diagnostic], renamed: &[(String, String)]) {
    if renamed.is_empty() {
        return;
    }
    let news = crate::model::NamePositions::of(renamed.iter().map(|(new, _)| new.as_str()));
    for d in diagnostics {
        let Some(rest) = d.path.strip_prefix("/properties/") else { continue };
        let (token, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        // New names are Claude's keys: no `~` or `/` to unescape.
        if let Some((_, original)) = news.position(token).map(|i| &renamed[i]) {
            let mut path = "/properties".owned();
            crate::text::push_pointer_token(&mut path, original);
            path.push_str(tail);
            d.path = path;
        }
    }
}

/// Renames the root's property keys that Claude refuses (see the module), reporting each under
/// `rule` (`provider`: who refuses them), and returns the plan that maps arguments back (empty
/// when nothing was renamed).
pub(crate) fn rename_top_level(root: &mut Value, cx: &mut Cx, rule: &'static str, provider: &str) -> ArgPlan {
    let Value::Object(obj) = root else { return ArgPlan::default() };
    let Some(Value::Object(props)) = obj.find("properties") else { return ArgPlan::default() };
    if props.keys().all(|k| claude_key_ok(k)) {
        return ArgPlan::default();
    }
    let renamed = claude_renames(props.keys().map(String::as_str));
    let index: Names = renamed.iter().map(|(new, original)| (original.as_str(), new.as_str())).collect();
    rename_in_object(obj, &index, 0);
    let back: HashMap<&str, &str> = renamed.iter().map(|(new, original)| (new.as_str(), original.as_str())).collect();
    name_keywords_in_place(obj, &renamed, &back, cx, rule, &mut Vec::new(), 0);
    for (new, original) in &renamed {
        let _ = cx.at("properties", |cx| {
            cx.at(original, |cx| {
                cx.change(
                    rule,
                    format!(
                        "property key {} is refused by {provider} (keys must match ^[a-zA-Z0-9_.-]{{1,64}}$; one that does not fails the whole request): renamed \"{new}\", arguments are mapped back",
                        crate::text::to_string(&string(original))
                    ),
                );
                Ok(())
            })
        });
    }
    rename_refs(root, &index, 0);
    note_server_keys(root, &renamed);
    let (mut plan, unmapped) = RootReferences::plan(root);
    for path in unmapped {
        report_at(
            cx,
            &path,
            rule,
            "a value here is of the root's shape (a `$ref: \"#\"`), with the renamed keys, and which values those are takes the schema to tell (a pattern, `contains`, or two references or unions for one value): the keys reach the server as the model sent them".owned(),
            true,
        );
    }
    plan.renamed = renamed;
    plan
}

/// Says on each renamed property (`renamed`: new key, server's) the key it is sent to the server
/// as. The note is the property's, not its schema's: a `$ref` to the property as a whole
/// (`#/properties/dollar_filter`, a value of the same schema under another key, sent as that
/// key) is pointed at a copy of the schema without it, in `$defs` (under the new key, made
/// unique there).
fn note_server_keys(root: &mut Value, renamed: &[(String, String)]) {
    let Value::Object(obj) = root else { return };
    let defs = obj.get("$defs").and_then(Value::as_object);
    let mut taken: HashSet<String> = defs.map(|d| d.keys().cloned().collect()).unwrap_or_default();
    let (mut next, mut probes) = (HashMap::new(), 0);
    // `#/properties/{new}` → `#/$defs/{copy}`, and whether a reference was pointed there.
    let mut copies: HashMap<String, (String, bool)> = HashMap::with_capacity(renamed.len());
    for (new, _) in renamed {
        let name = unique(new.clone(), &taken, &mut next, &mut probes);
        taken.insert(name.clone());
        copies.insert(format!("#/properties/{new}"), (name, false));
    }
    point_refs_at_copies(root, &mut copies, 0);
    let Value::Object(obj) = root else { return };
    for (new, original) in renamed {
        let Some(Value::Object(props)) = obj.get_mut("properties") else { return };
        let Some(Value::Object(p)) = props.get_mut(new) else { continue };
        let copy = match copies.get(&format!("#/properties/{new}")) {
            Some((name, true)) => Some((name.clone(), Value::Object(p.clone()))),
            _ => None,
        };
        append_description(p, &format!("(sent to the server as {})", crate::text::to_string(&string(original))));
        if let Some((name, schema)) = copy {
            let defs = obj.entry("$defs").or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(defs) = defs {
                defs.insert(name, schema);
            }
        }
    }
}

/// Points each `$ref` that is a key of `copies` at the copy it names (`#/$defs/{name}`), marking
/// the copy as needed.
fn point_refs_at_copies(node: &mut Value, copies: &mut HashMap<String, (String, bool)>, depth: usize) {
    let Value::Object(o) = node else { return };
    if depth > 512 {
        return;
    }
    if let Some(Value::String(r)) = o.get_mut("$ref") {
        if let Some((name, used)) = copies.get_mut(r.as_str()) {
            // New keys hold no `~`, `/` or character to encode.
            *r = format!("#/$defs/{name}");
            *used = true;
        }
    }
    for (key, sub) in o.iter_mut() {
        match (slot(key, sub), sub) {
            (Slot::Map, Value::Object(m)) => m.values_mut().for_each(|s| point_refs_at_copies(s, copies, depth + 1)),
            (Slot::Array, Value::Array(a)) => a.iter_mut().for_each(|s| point_refs_at_copies(s, copies, depth + 1)),
            (Slot::Single, s) => point_refs_at_copies(s, copies, depth + 1),
            _ => {}
        }
    }
}

/// [`name_keywords`] on the root and on each subschema that describes the root object, as
/// [`rename_in_object`] reaches them (`back`: new name → server's, for `dependentSchemas`'
/// renamed keys in the report's paths; `path`: where `obj` is, as pointer tokens). Each node
/// costs its patterns (or its `propertyNames`) times the renamed keys.
fn name_keywords_in_place(obj: &mut JsonObject, renamed: &[(String, String)], back: &HashMap<&str, &str>, cx: &mut Cx, rule: &'static str, path: &mut Vec<String>, depth: usize) {
    if depth > 64 {
        return;
    }
    name_keywords(obj, renamed, cx, rule, path, depth == 0);
    for key in IN_PLACE {
        path.push((*key).owned());
        match obj.get_mut(*key) {
            Some(Value::Array(branches)) => {
                for (i, b) in branches.iter_mut().enumerate() {
                    if let Value::Object(b) = b {
                        path.push(i.to_string());
                        name_keywords_in_place(b, renamed, back, cx, rule, path, depth + 1);
                        path.pop();
                    }
                }
            }
            Some(Value::Object(map)) if *key == "dependentSchemas" => {
                for (k, b) in map.iter_mut() {
                    if let Value::Object(b) = b {
                        path.push(back.get(k.as_str()).map_or_else(|| k.clone(), |o| (*o).owned()));
                        name_keywords_in_place(b, renamed, back, cx, rule, path, depth + 1);
                        path.pop();
                    }
                }
            }
            Some(Value::Object(sub)) => name_keywords_in_place(sub, renamed, back, cx, rule, path, depth + 1),
            _ => {}
        }
        path.pop();
    }
}

/// The `patternProperties` and `propertyNames` of the root or of a subschema that describes
/// it (`root`: which; `at`: where, as pointer tokens), which test keys, made to hold for the
/// renamed keys as they held for the server's:
///
/// - a pattern that matched the server's key (`^\$` and `$filter`) and does not match the new
///   one: its schema joins the new key's in the node's `properties` (`allOf`; given to it
///   where the node has none, a subschema's `properties` made where it has none), a change: as
///   exact under `not` or `if` as anywhere; a pattern that matches the new key and did not
///   match the server's: it constrains what it did not, a problem; a pattern beyond literals,
///   `.`, `^` and `$` (no regex engine here): a problem naming it.
/// - the root's `propertyNames` (anything but `true`): an `anyOf` of the renamed keys (`enum`)
///   and the original, so that it refuses no renamed key (each is a declared key of the
///   server's, whatever its own test says of that), a change.
/// - a subschema's `propertyNames`, which may mean to refuse a declared key (under
///   `dependentSchemas`, `then`, `not`...: "not with `mode`"): each renamed key is held to what
///   it said of the server's key where that can be told ([`names_verdict`]) and differs from
///   what it says of the new one: admitted by name (`anyOf` with their `enum`) or refused by
///   name (`allOf` with `not` their `enum`), a change; where it cannot be told, admitted by
///   name, and a problem says the server's test may refuse the key.
fn name_keywords(obj: &mut JsonObject, renamed: &[(String, String)], cx: &mut Cx, rule: &'static str, at: &[String], root: bool) {
    let key_at = |original: &str| -> Vec<String> { at.iter().cloned().chain(["properties".owned(), original.owned()]).collect() };
    if let Some(Value::Object(patterns)) = obj.get("patternProperties") {
        let patterns = patterns.clone();
        for (new, original) in renamed {
            for (pattern, schema) in &patterns {
                let message = match (literal_match(pattern, original), literal_match(pattern, new)) {
                    (Some(true), Some(false)) => {
                        if obj.get("properties").is_none_or(Value::is_object) {
                            let props = obj.entry("properties").or_insert_with(|| Value::Object(Map::new()));
                            if let Value::Object(props) = props {
                                match props.get_mut(new) {
                                    Some(p) => join_schema(p, schema.clone()),
                                    None => {
                                        props.insert(new.clone(), schema.clone());
                                    }
                                }
                            }
                        }
                        let m = if root {
                            format!("patternProperties {} applies to {} and not to \"{new}\": its schema is joined to the renamed property's (allOf)", string_json(pattern), string_json(original))
                        } else {
                            format!("patternProperties {} applies to {} and not to \"{new}\": its schema is joined to \"{new}\"'s in the `properties` beside it (allOf)", string_json(pattern), string_json(original))
                        };
                        report_at(cx, &key_at(original), rule, m, false);
                        continue;
                    }
                    (Some(a), Some(b)) if a == b => continue,
                    (Some(_), Some(_)) => format!(
                        "patternProperties {} applies to \"{new}\", the renamed {}, and not to the server's key: the model is held to a schema the server does not set",
                        string_json(pattern),
                        string_json(original)
                    ),
                    _ => format!(
                        "whether patternProperties {} applies to {} or to \"{new}\" is not known (only literal patterns are read): what it sets for the server's key may not reach the renamed one",
                        string_json(pattern),
                        string_json(original)
                    ),
                };
                report_at(cx, &key_at(original), rule, message, true);
            }
        }
    }
    let names_at = || -> Vec<String> { at.iter().cloned().chain(["propertyNames".owned()]).collect() };
    let Some(names) = obj.get_mut("propertyNames").filter(|n| **n != Value::Bool(true)) else { return };
    if root {
        let keys = Value::Array(renamed.iter().map(|(new, _)| string(new)).collect());
        let mut both = Map::new();
        both.insert("anyOf".owned(), Value::Array(vec![Value::Object(Map::from_iter([("enum".owned(), keys)])), std::mem::take(names)]));
        *names = Value::Object(both);
        report_at(cx, &names_at(), rule, "propertyNames, which tests the server's keys, admits the renamed ones by name (anyOf with their enum): each is a key the server declares".owned(), false);
        return;
    }
    let (mut admitted, mut refused, mut unknown) = (Vec::new(), Vec::new(), Vec::new());
    for (new, original) in renamed {
        match (names_verdict(names, original, 0), names_verdict(names, new, 0)) {
            (Some(a), Some(b)) if a == b => {}
            (Some(true), _) => admitted.push(string(new)),
            (Some(false), _) => refused.push(string(new)),
            (None, _) => {
                admitted.push(string(new));
                unknown.push((new, original));
            }
        }
    }
    if admitted.is_empty() && refused.is_empty() {
        return;
    }
    let mut said = Vec::new();
    if !refused.is_empty() {
        said.push(format!("refuses {} by name (allOf with not their enum)", short_list(&refused)));
        let not = Value::Object(Map::from_iter([("not".owned(), Value::Object(Map::from_iter([("enum".owned(), Value::Array(refused))])))]));
        *names = Value::Object(Map::from_iter([("allOf".owned(), Value::Array(vec![not, std::mem::take(names)]))]));
    }
    if !admitted.is_empty() {
        said.push(format!("admits {} by name (anyOf with their enum)", short_list(&admitted)));
        let admit = Value::Object(Map::from_iter([("enum".owned(), Value::Array(admitted))]));
        *names = Value::Object(Map::from_iter([("anyOf".owned(), Value::Array(vec![admit, std::mem::take(names)]))]));
    }
    let message = format!("propertyNames, which tests the server's keys, {}, as it takes the server's keys", said.join(" and "));
    report_at(cx, &names_at(), rule, message, false);
    for (new, original) in unknown {
        let message = format!(
            "whether this propertyNames admits {} is not known (only literal patterns, enum, const and lengths are read): the renamed \"{new}\" is admitted by name, where the server's test may refuse its key",
            string_json(original)
        );
        report_at(cx, &names_at(), rule, message, true);
    }
}

/// What `schema` (a `propertyNames`) says of the key `key`, where that can be told: `true`,
/// `false`, or an object of `pattern` ([`literal_match`]), `enum`, `const`, `minLength`,
/// `maxLength`, `type` and annotations, each of which must hold; `not`, `allOf`, `anyOf` of
/// such. `None` for any other.
fn names_verdict(schema: &Value, key: &str, depth: usize) -> Option<bool> {
    let o = match schema {
        Value::Bool(b) => return Some(*b),
        Value::Object(o) if depth <= 16 => o,
        _ => return None,
    };
    let mut all = Some(true);
    for (k, v) in o {
        let one = match (k.as_str(), v) {
            ("description" | "title" | "$comment" | "examples" | "default" | "deprecated", _) => Some(true),
            ("pattern", Value::String(p)) => literal_match(p, key),
            ("enum", Value::Array(values)) => Some(values.iter().any(|x| x.as_str() == Some(key))),
            ("const", c) => Some(c.as_str() == Some(key)),
            ("minLength" | "maxLength", n) => n.as_f64().map(|n| {
                let len = key.chars().count() as f64;
                if k == "minLength" { len >= n } else { len <= n }
            }),
            ("type", Value::String(t)) => Some(t == "string"),
            ("type", Value::Array(ts)) => Some(ts.iter().any(|t| t.as_str() == Some("string"))),
            ("not", s) => names_verdict(s, key, depth + 1).map(|b| !b),
            ("allOf" | "anyOf", Value::Array(branches)) => {
                let verdicts = branches.iter().map(|b| names_verdict(b, key, depth + 1));
                let (any_true, any_false, any_unknown) = verdicts.fold((false, false, false), |(t, f, u), v| (t || v == Some(true), f || v == Some(false), u || v.is_none()));
                match k.as_str() {
                    "allOf" if any_false => Some(false),
                    "allOf" if !any_unknown => Some(true),
                    "anyOf" if any_true => Some(true),
                    "anyOf" if !any_unknown => Some(false),
                    _ => None,
                }
            }
            _ => None,
        };
        all = match (all, one) {
            (_, Some(false)) | (Some(false), _) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        };
    }
    all
}

/// Names as a JSON list, the first few only.
fn short_list(names: &[Value]) -> String {
    const SHOWN: usize = 8;
    let mut out = crate::text::to_string(&Value::Array(names.iter().take(SHOWN).cloned().collect()));
    if names.len() > SHOWN {
        out.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    out
}

fn string_json(s: &str) -> String {
    crate::text::to_string(&string(s))
}

/// A change (`problem`: a problem) at `tokens` below `cx`'s path.
fn report_at(cx: &mut Cx, tokens: &[String], rule: &'static str, message: String, problem: bool) {
    match tokens.split_first() {
        None if problem => cx.problem(rule, message),
        None => cx.change(rule, message),
        Some((token, rest)) => {
            let _ = cx.at(token, |cx| {
                report_at(cx, rest, rule, message, problem);
                Ok(())
            });
        }
    }
}

/// `extra` joined to a property's schema: into its `allOf` (made when absent); `true` becomes
/// `{allOf: [extra]}`, `false` stays.
fn join_schema(schema: &mut Value, extra: Value) {
    match schema {
        Value::Bool(true) => *schema = Value::Object(Map::from_iter([("allOf".owned(), Value::Array(vec![extra]))])),
        Value::Object(o) => match o.get_mut("allOf") {
            Some(Value::Array(all)) => all.push(extra),
            _ => {
                o.insert("allOf".owned(), Value::Array(vec![extra]));
            }
        },
        _ => {}
    }
}

/// Whether the ECMAScript `pattern` matches `key` (searched, as JSON Schema does), for patterns
/// of literal characters (`\` escapes of punctuation included), `.`, a leading `^` and a
/// trailing `$`; `None` for any other.
fn literal_match(pattern: &str, key: &str) -> Option<bool> {
    let (start, rest) = pattern.strip_prefix('^').map_or((false, pattern), |r| (true, r));
    let mut atoms: Vec<Option<char>> = Vec::new(); // `None`: any character but a line end.
    let mut chars = rest.chars().peekable();
    let mut end = false;
    while let Some(c) = chars.next() {
        match c {
            '$' if chars.peek().is_none() => end = true,
            '\\' => match chars.next() {
                Some(e) if e.is_ascii_punctuation() => atoms.push(Some(e)),
                _ => return None,
            },
            '.' => atoms.push(None),
            '[' | ']' | '(' | ')' | '{' | '}' | '|' | '*' | '+' | '?' | '^' | '$' => return None,
            c => atoms.push(Some(c)),
        }
    }
    let key: Vec<char> = key.chars().collect();
    let at = |i: usize| atoms.iter().enumerate().all(|(j, a)| key.get(i + j).is_some_and(|k| a.map_or(!matches!(k, '\n' | '\r' | '\u{2028}' | '\u{2029}'), |a| a == *k)));
    let fits = |i: usize| at(i) && (!end || i + atoms.len() == key.len());
    Some(if start { fits(0) } else { (0..=key.len()).any(fits) })
}

/// For a root whose `anyOf`/`oneOf` [`crate::schema::lower::merge_root_combinators`] will
/// merge into one object, with keys Claude refuses among its or its branches' properties: the
/// new names the merged object's keys will get (server's → Claude's), from a merge of a copy.
/// `None` when there is no such union or key (the common case: nothing copied).
pub(crate) fn merged_renames(root: &JsonObject, cx: &Cx) -> Option<HashMap<String, String>> {
    if !COMBINATORS.iter().any(|k| root.get(*k).is_some_and(Value::is_array)) || !merge_may_rename(root, 0) {
        return None;
    }
    let mut trial = root.clone();
    crate::schema::lower::merge_root_combinators(&mut trial, &mut Cx::new(cx.limits));
    let Some(Value::Object(props)) = trial.get("properties") else { return None };
    let renamed = claude_renames(props.keys().map(String::as_str));
    (!renamed.is_empty()).then(|| renamed.into_iter().map(|(new, original)| (original, new)).collect())
}

/// The root combinators [`crate::schema::lower::merge_root_combinators`] merges.
const COMBINATORS: [&str; 3] = ["allOf", "anyOf", "oneOf"];

/// Whether merging `node`'s combinators may give the root a key Claude refuses: one in its or a
/// branch's `properties`, through the branches' own combinators (an `allOf` brings its
/// branches' unions up, each of the root's unions is merged), or a branch that is a reference
/// the merge resolves (then the trial merge tells). Looks at each branch once.
fn merge_may_rename(node: &JsonObject, depth: usize) -> bool {
    let refused = matches!(node.get("properties"), Some(Value::Object(p)) if p.keys().any(|k| !claude_key_ok(k)));
    refused
        || depth > 64
        || COMBINATORS.iter().filter_map(|k| node.get(*k)?.as_array()).flatten().any(|b| match b {
            Value::Object(b) => b.contains_key("$ref") || merge_may_rename(b, depth + 1),
            _ => false,
        })
}

/// The subschemas that describe the same object as the node holding them.
const IN_PLACE: &[&str] = &["allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas"];

/// The renamed keys: original → new.
type Names<'r> = HashMap<&'r str, &'r str>;

/// The renamed keys, as a map from the server's key to the new one.
trait Renamed {
    /// The new name of `key`, if renamed.
    fn new_name(&self, key: &str) -> Option<&str>;
}

impl Renamed for Names<'_> {
    fn new_name(&self, key: &str) -> Option<&str> {
        self.get(key).copied()
    }
}

impl Renamed for HashMap<String, String> {
    fn new_name(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

fn new_name<'r, R: Renamed>(renamed: &'r R, key: &str) -> Option<&'r str> {
    renamed.new_name(key)
}

/// A branch's other keywords, as the note of a merged root union shows them, with the keys the
/// model sees (`renamed`: [`merged_renames`]): `required` and `dependentRequired` names,
/// `dependentSchemas` keys, the same in their in-place subschemas, `$ref`s to a renamed
/// property ([`rename_in_object`], [`rename_refs`]); `patternProperties` and `propertyNames`
/// made to hold for the renamed keys as they held for the server's, as a subschema describing
/// the root gets them ([`name_keywords`]: what they say then is said by the note itself).
pub(crate) fn rename_for_note(extra: &mut Value, renamed: &HashMap<String, String>) {
    if let Value::Object(o) = extra {
        rename_in_object(o, renamed, 0);
        // New → server's, in a fixed order (the note's text must not vary by run).
        let mut list: Vec<(String, String)> = renamed.iter().map(|(original, new)| (new.clone(), original.clone())).collect();
        // No two pairs are the same (their originals are a map's keys): unstable is stable here.
        crate::model::heapsort(&mut list);
        let back: HashMap<&str, &str> = list.iter().map(|(new, original)| (new.as_str(), original.as_str())).collect();
        let mut scratch = Cx::new(crate::schema::Limits::default());
        name_keywords_in_place(o, &list, &back, &mut scratch, "anthropic/property-renamed", &mut Vec::new(), 1);
    }
    rename_refs(extra, renamed, 0);
}

/// Renames keys of one object's schema node: `properties`, `required`, `dependentRequired`,
/// `dependentSchemas`' keys, `dependencies` (draft 7's form of the two), and the same in its
/// in-place subschemas.
fn rename_in_object<R: Renamed>(obj: &mut JsonObject, renamed: &R, depth: usize) {
    if depth > 64 {
        return;
    }
    let rename_keys = |map: &mut Map<String, Value>| {
        if map.keys().any(|k| new_name(renamed, k).is_some()) {
            *map = std::mem::take(map).into_iter().map(|(k, v)| (new_name(renamed, &k).map_or(k, str::to_owned), v)).collect();
        }
    };
    let rename_names = |names: &mut Vec<Value>| {
        for n in names.iter_mut() {
            if let Some(new) = n.as_str().and_then(|s| new_name(renamed, s)) {
                *n = string(new);
            }
        }
    };
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        rename_keys(props);
    }
    if let Some(Value::Array(names)) = obj.get_mut("required") {
        rename_names(names);
    }
    if let Some(Value::Object(deps)) = obj.get_mut("dependentRequired") {
        rename_keys(deps);
        deps.values_mut().filter_map(Value::as_array_mut).for_each(rename_names);
    }
    if let Some(Value::Object(deps)) = obj.get_mut("dependentSchemas") {
        rename_keys(deps);
    }
    // Draft 7's `dependencies`: a name's list as `dependentRequired`, its schema as
    // `dependentSchemas`.
    if let Some(Value::Object(deps)) = obj.get_mut("dependencies") {
        rename_keys(deps);
        for dep in deps.values_mut() {
            match dep {
                Value::Array(names) => rename_names(names),
                Value::Object(sub) => rename_in_object(sub, renamed, depth + 1),
                _ => {}
            }
        }
    }
    for key in IN_PLACE {
        match obj.get_mut(*key) {
            Some(Value::Array(branches)) => branches.iter_mut().filter_map(Value::as_object_mut).for_each(|b| rename_in_object(b, renamed, depth + 1)),
            Some(Value::Object(map)) if *key == "dependentSchemas" => map.values_mut().filter_map(Value::as_object_mut).for_each(|b| rename_in_object(b, renamed, depth + 1)),
            Some(Value::Object(sub)) => rename_in_object(sub, renamed, depth + 1),
            _ => {}
        }
    }
}

/// `$ref`s to a renamed property of the root (`#/properties/$top`, percent-encoded or not) point
/// at its new name; every other reference stays as written. Subschemas only, by position (a
/// property named `enum` is a schema, an `enum`'s values are data).
fn rename_refs<R: Renamed>(node: &mut Value, renamed: &R, depth: usize) {
    let Value::Object(o) = node else { return };
    if depth > 512 {
        return;
    }
    if let Some(Value::String(r)) = o.get_mut("$ref") {
        if let Some(rest) = r.strip_prefix("#/properties/") {
            let (token, tail) = rest.split_once('/').unwrap_or((rest, ""));
            let decoded = crate::schema::refs::percent_decode(token, false).replace("~1", "/").replace("~0", "~");
            if let Some(new) = new_name(renamed, &decoded) {
                // New names hold no `~`, `/` or character to encode.
                *r = if tail.is_empty() { format!("#/properties/{new}") } else { format!("#/properties/{new}/{tail}") };
            }
        }
    }
    for (key, sub) in o.iter_mut() {
        match (slot(key, sub), sub) {
            (Slot::Map, Value::Object(m)) => m.values_mut().for_each(|s| rename_refs(s, renamed, depth + 1)),
            (Slot::Array, Value::Array(a)) => a.iter_mut().for_each(|s| rename_refs(s, renamed, depth + 1)),
            (Slot::Single, s) => rename_refs(s, renamed, depth + 1),
            _ => {}
        }
    }
}

/// Finds the values that a schema describes as the root (a `$ref: "#"`, however reached) and
/// gives them the root's plan: those objects have the renamed keys too. Every subschema
/// position is walked ([`slot`]): `properties`, `additionalProperties` (and
/// `unevaluatedProperties`), `items`, `prefixItems` (and `additionalItems`,
/// `unevaluatedItems`), the branches of `anyOf`/`oneOf` (each with its [`Fit`]), the
/// subschemas that describe the same value (`allOf`, `if`/`then`/`else`, `dependentSchemas`:
/// their plans joined), and local `$ref`s (a definition's plan kept once under its reference,
/// so that a cycle stays a reference). What no plan can say (a root reference under
/// `patternProperties` or `contains`, two joined plans that disagree) is a problem under the
/// rename's rule: those values keep the renamed keys. `not` and `propertyNames` hold no
/// values of the object, `$defs` are reached through references.
struct RootReferences<'s> {
    root: &'s Value,
    /// The plans of the references followed (empty ones dropped at the end).
    defs: PropertyPlans,
    /// The references followed so far: each target is walked once.
    followed: HashSet<&'s str>,
    /// Where the walk is, as JSON pointer tokens.
    path: Vec<String>,
    /// Where a root reference is not mapped back (pointer tokens).
    unmapped: Vec<Vec<String>>,
}

impl<'s> RootReferences<'s> {
    /// The plan of the root (see the type).
    fn plan(root: &'s Value) -> (ArgPlan, Vec<Vec<String>>) {
        let mut walk = RootReferences { root, defs: PropertyPlans::default(), followed: HashSet::new(), path: Vec::new(), unmapped: Vec::new() };
        let mut plan = walk.node(root, 0);
        plan.defs = (!walk.defs.is_empty()).then(|| Box::new(walk.defs));
        // A definition whose plan is a reference to one with nothing to do has nothing to do
        // either: until no empty one is left (each round drops one at least).
        while let Some(defs) = plan.defs.as_deref().filter(|d| d.iter().any(|(_, p)| p.is_empty())) {
            let kept: PropertyPlans = defs.iter().filter(|(_, p)| !p.is_empty()).map(|(k, p)| (k.clone(), p.clone())).collect();
            plan.defs = (!kept.is_empty()).then(|| Box::new(kept));
            plan.drop_dangling_references();
        }
        (plan, walk.unmapped)
    }

    fn unmapped(&mut self) {
        self.unmapped.push(self.path.clone());
    }

    /// The plan of `node`'s value, walked under `token`.
    fn at(&mut self, token: &str, node: &'s Value, depth: usize) -> ArgPlan {
        self.path.push(token.owned());
        let plan = self.node(node, depth);
        self.path.pop();
        plan
    }

    /// The plans of the subschemas at `key` (`kind`: [`slot`]'s), each walked where it is.
    fn each(&mut self, key: &str, sub: &'s Value, kind: Slot, depth: usize) -> Vec<ArgPlan> {
        match (kind, sub) {
            (Slot::Single, s) => vec![self.at(key, s, depth)],
            (Slot::Array, Value::Array(a)) => {
                self.path.push(key.owned());
                let plans = a.iter().enumerate().map(|(i, s)| self.at(&i.to_string(), s, depth)).collect();
                self.path.pop();
                plans
            }
            (Slot::Map, Value::Object(m)) => {
                self.path.push(key.owned());
                let plans = m.iter().map(|(k, s)| self.at(k, s, depth)).collect();
                self.path.pop();
                plans
            }
            _ => Vec::new(),
        }
    }

    fn node(&mut self, node: &'s Value, depth: usize) -> ArgPlan {
        let mut plan = ArgPlan::default();
        let Value::Object(o) = node else { return plan };
        if depth > 64 {
            return plan;
        }
        match o.get("$ref").and_then(Value::as_str) {
            Some("#") if depth > 0 => plan.reference = Some("#".into()),
            Some(r) if r != "#" => {
                if let Some(target) = crate::schema::refs::lookup(self.root, r) {
                    if self.followed.insert(r) {
                        // Walked where it is (a definition's path), once.
                        let here = std::mem::replace(&mut self.path, pointer_tokens(r));
                        let p = self.node(target, depth + 1);
                        self.path = here;
                        self.defs.insert(r.owned(), p);
                    }
                    plan.reference = Some(r.into());
                }
            }
            _ => {}
        }
        let (mut additional, mut rest, mut prefix, mut branches) = (None, None, None, None);
        for (key, sub) in o {
            let kind = slot(key, sub);
            match (key.as_str(), sub) {
                _ if kind == Slot::None => {}
                ("$defs" | "definitions" | "not" | "propertyNames", _) => {}
                ("properties", Value::Object(props)) => {
                    self.path.push(key.clone());
                    for (k, s) in props {
                        let p = self.at(k, s, depth + 1);
                        plan.set_property(k, p);
                    }
                    self.path.pop();
                }
                ("additionalProperties" | "unevaluatedProperties", _) => {
                    let p = self.at(key, sub, depth + 1);
                    if !p.is_empty() && additional.is_none() {
                        additional = Some(p);
                    }
                }
                ("items" | "additionalItems" | "unevaluatedItems", Value::Object(_)) => {
                    let p = self.at(key, sub, depth + 1);
                    if !p.is_empty() && rest.is_none() {
                        rest = Some(p);
                    }
                }
                ("prefixItems" | "items", Value::Array(items)) => {
                    self.path.push(key.clone());
                    let plans: Vec<ArgPlan> = items.iter().enumerate().map(|(i, s)| self.at(&i.to_string(), s, depth + 1)).collect();
                    self.path.pop();
                    prefix = Some(plans);
                }
                ("anyOf" | "oneOf", Value::Array(items)) => {
                    self.path.push(key.clone());
                    let plans: Vec<ArgPlan> = items.iter().enumerate().map(|(i, s)| self.at(&i.to_string(), s, depth + 1)).collect();
                    if plans.iter().any(|p| !p.is_empty()) {
                        if branches.is_some() {
                            // One union is mapped (the first): a value is of a branch of each.
                            self.unmapped();
                        } else {
                            branches = Some(plans.into_iter().zip(items).map(|(p, b)| ArgPlan { fit: Some(Box::new(Fit::of(b))), ..p }).collect::<Vec<_>>());
                        }
                    }
                    self.path.pop();
                }
                ("allOf" | "if" | "then" | "else" | "dependentSchemas", _) => {
                    for p in self.each(key, sub, kind, depth + 1) {
                        if !join(&mut plan, p) {
                            self.unmapped();
                        }
                    }
                }
                // `patternProperties`, `contains`: which values they describe takes the schema.
                _ => {
                    if self.each(key, sub, kind, depth + 1).iter().any(|p| !p.is_empty()) {
                        self.path.push(key.clone());
                        self.unmapped();
                        self.path.pop();
                    }
                }
            }
        }
        if let Some(p) = additional {
            // Every declared key is named, so that the plan tells them from the others.
            if let Some(Value::Object(props)) = o.get("properties") {
                for k in props.keys() {
                    if plan.properties.get(k).is_none() {
                        plan.properties.insert(k.clone(), ArgPlan::default());
                    }
                }
            }
            if !join_opt(&mut plan.additional, p) {
                self.unmapped();
            }
        }
        let rest_found = rest.is_some();
        if let Some(p) = rest {
            if !join_opt(&mut plan.items, p) {
                self.unmapped();
            }
        }
        if let Some(plans) = prefix {
            if rest_found || plans.iter().any(|p| !p.is_empty()) {
                for (i, p) in plans.into_iter().enumerate() {
                    match plan.prefix_items.get_mut(i) {
                        Some(mine) => {
                            if !join(mine, p) {
                                self.unmapped();
                            }
                        }
                        None => plan.prefix_items.push(p),
                    }
                }
            }
        }
        if let Some(b) = branches {
            if plan.any_of.is_empty() {
                plan.any_of = b;
            } else {
                self.unmapped();
            }
        }
        plan
    }
}

/// The tokens of a local JSON pointer reference (`#/$defs/a~1b` → `$defs`, `a/b`); an anchor
/// (`#name`) as one token.
fn pointer_tokens(r: &str) -> Vec<String> {
    let fragment = crate::schema::refs::percent_decode(r.strip_prefix('#').unwrap_or(r), false);
    match fragment.strip_prefix('/') {
        Some(p) => p.split('/').map(|t| t.replace("~1", "/").replace("~0", "~")).collect(),
        None => vec![fragment],
    }
}

/// Joins `other` into `into` (both plans of one value): `false` where they disagree (two
/// references, two unions), `into`'s kept there.
fn join(into: &mut ArgPlan, other: ArgPlan) -> bool {
    let mut agree = true;
    for (k, p) in other.properties.iter() {
        let mut mine = into.properties.get(k).cloned().unwrap_or_default();
        agree &= join(&mut mine, p.clone());
        into.properties.insert(k.clone(), mine);
    }
    if let Some(p) = other.items {
        agree &= join_opt(&mut into.items, *p);
    }
    if let Some(p) = other.additional {
        agree &= join_opt(&mut into.additional, *p);
    }
    for (i, p) in other.prefix_items.into_iter().enumerate() {
        match into.prefix_items.get_mut(i) {
            Some(mine) => agree &= join(mine, p),
            None => into.prefix_items.push(p),
        }
    }
    if !other.any_of.is_empty() {
        if into.any_of.is_empty() {
            into.any_of = other.any_of;
        } else {
            agree = false;
        }
    }
    match (&into.reference, other.reference) {
        (None, r) => into.reference = r,
        (Some(mine), Some(r)) if *mine != r => agree = false,
        _ => {}
    }
    agree
}

fn join_opt(into: &mut Option<Box<ArgPlan>>, other: ArgPlan) -> bool {
    match into {
        Some(mine) => join(mine, other),
        None => {
            *into = Some(Box::new(other));
            true
        }
    }
}

/// Reports the keys of a Gemini `parameters` object outside Gemini's documented rule (see the
/// module): at `cx`'s path, the object's.
pub(crate) fn report_gemini_keys(props: &Map<String, Value>, cx: &mut Cx) {
    for name in props.keys().filter(|k| !gemini_key_ok(k)) {
        let _ = cx.at("properties", |cx| {
            cx.at(name, |cx| {
                cx.problem(
                    "gemini/property-name",
                    format!(
                        "property name {} is outside what Gemini documents for `parameters` (a letter or `_`, then letters, digits or `_`, at most 64); no rejection has been seen, but a model may enforce it (geminiMode \"parametersJsonSchema\" documents no such rule)",
                        crate::text::to_string(&string(name))
                    ),
                );
                Ok(())
            })
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Limits;
    use serde_json::json;

    /// Thousands of diagnostics under renamed keys are pointed at the server's keys in linear
    /// time: each path's key is looked up among the new names by hash, where scanning them for
    /// each took 16 times the work for 4 times the keys (22 s for 16,000 in the package). The
    /// paths are as before, few renamed keys or many.
    #[test]
    fn many_renamed_keys_point_diagnostics_back_in_linear_time() {
        let keys = |n: usize| -> Vec<String> { (0..n).map(|i| format!("{}{i}", "x".repeat(70))).chain(["$a".owned(), "ok".owned()]).collect() };
        let run = |n: usize| {
            let keys = keys(n);
            let renamed = claude_renames(keys.iter().map(String::as_str));
            let diagnostic = |path: String| crate::report::Diagnostic { path, rule: "r", message: String::new() };
            let mut ds: Vec<_> = renamed.iter().rev().map(|(new, _)| diagnostic(format!("/properties/{new}/minimum"))).collect();
            ds.extend(["/properties/ok", "", "/properties/dollar_a", "/$defs/dollar_a"].map(|p| diagnostic(p.owned())));
            let before = crate::model::NAME_STEPS.with(|s| s.get());
            paths_to_server_keys(&mut ds, &renamed);
            let steps = crate::model::NAME_STEPS.with(|s| s.get()) - before;
            let mut want: Vec<String> = keys[..=n].iter().rev().map(|k| format!("/properties/{k}/minimum")).collect();
            want.extend(["/properties/ok", "", "/properties/$a", "/$defs/dollar_a"].map(str::to_owned));
            assert_eq!(ds.iter().map(|d| d.path.as_str()).collect::<Vec<_>>(), want, "{n}");
            steps
        };
        let (small, large) = (run(2_000), run(8_000));
        assert!(large <= 5 * small, "{small} then {large} steps for 4 times the keys");
        for n in [0, 3, crate::model::NameSet::FEW - 1, crate::model::NameSet::FEW, 40] {
            run(n);
        }
    }

    #[test]
    fn keys_claude_takes() {
        for ok in ["a", "If-Match", "odata.type", "_x", "9lives", &"k".repeat(64)] {
            assert!(claude_key_ok(ok), "{ok}");
            assert_eq!(claude_key(ok), ok);
        }
        for bad in ["", "$top", "@odata.type", "filter[id]", "Account Number", "café", &"k".repeat(65)] {
            assert!(!claude_key_ok(bad), "{bad}");
            assert!(claude_key_ok(&claude_key(bad)), "{bad} -> {}", claude_key(bad));
        }
    }

    #[test]
    fn rename_rules() {
        assert_eq!(claude_key("$top"), "dollar_top");
        assert_eq!(claude_key("$.xgafv"), "dollar_.xgafv");
        assert_eq!(claude_key("@microsoft.graph.conflictBehavior"), "at_microsoft.graph.conflictBehavior");
        assert_eq!(claude_key("filter[id]"), "filter_id_");
        assert_eq!(claude_key("Account Number"), "Account_Number");
        assert_eq!(claude_key("DateCreated<"), "DateCreated_");
        assert_eq!(claude_key("a$b"), "a_b");
        assert_eq!(claude_key("café"), "caf_");
        assert_eq!(claude_key("日本"), "__");
        assert_eq!(claude_key(""), EMPTY_KEY);
        assert_eq!(claude_key("$"), "dollar_");
    }

    #[test]
    fn long_keys_are_cut_with_a_stable_hash() {
        let a = format!("{}_a", "x".repeat(70));
        let b = format!("{}_b", "x".repeat(70));
        let (ka, kb) = (claude_key(&a), claude_key(&b));
        assert_eq!(ka.len(), 64);
        assert!(ka.starts_with(&"x".repeat(55)) && ka.as_bytes()[55] == b'_', "{ka}");
        assert_ne!(ka, kb, "the hash keeps keys with the same head apart");
        assert_eq!(ka, claude_key(&a), "stable");
        assert!(claude_key_ok(&ka));
        // Over 64 only after `$` is spelt out.
        let c = format!("${}", "y".repeat(60));
        assert!(claude_key(&c).len() == 64 && claude_key(&c).starts_with("dollar_"));
    }

    #[test]
    fn collisions_get_a_suffix_in_schema_order() {
        let keys = ["$top", "dollar_top", "$top ", "dollar_top_2x", "@top", "at_top"];
        let renamed = claude_renames(keys.iter().copied());
        // `$top ` sanitises to `dollar_top_`, no collision; the kept `dollar_top` and `at_top`
        // push the renamed ones to `_2`.
        assert_eq!(
            renamed,
            [("dollar_top_2".to_owned(), "$top".to_owned()), ("dollar_top_".to_owned(), "$top ".to_owned()), ("at_top_2".to_owned(), "@top".to_owned())]
        );
        // Two renamed keys that sanitise alike, and a suffix that must cut a 64-character name.
        let long = "z".repeat(64);
        let (kept, cut) = (format!("{}_", &long[..63]), format!("{}$", &long[..63]));
        let renamed = claude_renames([kept.as_str(), "a b", "a[b", "a_b_2", cut.as_str()].into_iter());
        assert_eq!(renamed[0], ("a_b".to_owned(), "a b".to_owned()));
        assert_eq!(renamed[1], ("a_b_3".to_owned(), "a[b".to_owned()), "a_b_2 is a kept key");
        assert_eq!(renamed[2].0, format!("{}_2", &long[..62]), "cut to fit the suffix");
        assert!(renamed.iter().all(|(n, _)| claude_key_ok(n)));
    }

    /// Thousands of keys to rename (the node limit allows 100,000): in linear time, each name
    /// once, and the arguments mapped back. Ten thousand of them clean to one name (`a_b`):
    /// each finds its suffix in a probe or two, where trying `_2`, `_3`... from the start took
    /// 50 million probes (11 s for the package).
    #[test]
    fn many_keys_are_renamed_in_linear_time() {
        let alike = (0..10_000u32).map(|i| format!("a{}b", char::from_u32(0x4e00 + i).unwrap()));
        let keys: Vec<String> = (0..20_000).map(|i| format!("${i}")).chain(["dollar_7".to_owned(), "a_b_3".to_owned()]).chain(alike).collect();
        let started = std::time::Instant::now();
        let (renamed, probes) = renames_counted(keys.iter().map(String::as_str));
        assert_eq!(renamed.len(), 30_000);
        assert_eq!(renamed[7], ("dollar_7_2".to_owned(), "$7".to_owned()));
        let alike: Vec<&str> = renamed[20_000..].iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(alike[..4], ["a_b", "a_b_2", "a_b_4", "a_b_5"], "a_b_3 is a kept key");
        assert_eq!(alike[9_999], "a_b_10001");
        assert!(probes < 3 * keys.len(), "{probes} probes for {} keys", keys.len());
        let names: HashSet<&str> = renamed.iter().map(|(n, _)| n.as_str()).chain(["dollar_7", "a_b_3"]).collect();
        assert_eq!(names.len(), 30_002);
        let plan = ArgPlan { renamed, ..ArgPlan::default() };
        let args: Map<String, Value> = plan.renamed.iter().map(|(n, _)| (n.clone(), Value::Bool(true))).collect();
        let Value::Object(back) = plan.apply(Value::Object(args)) else { panic!() };
        let sent: Vec<&String> = keys.iter().filter(|k| !claude_key_ok(k)).collect();
        assert!(back.keys().zip(&sent).all(|(a, b)| a == *b) && back.len() == sent.len());
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "{:?}", started.elapsed());
    }

    fn rename(schema: Value) -> (Value, ArgPlan, Cx) {
        let mut cx = Cx::new(Limits::default());
        let mut s = schema;
        let plan = rename_top_level(&mut s, &mut cx, "anthropic/property-renamed", "Anthropic");
        (s, plan, cx)
    }

    #[test]
    fn required_dependencies_branches_and_refs_follow() {
        let (s, plan, cx) = rename(json!({
            "type": "object",
            "properties": {"$top": {"type": "integer", "description": "How many."}, "q": {"$ref": "#/properties/%24top"}, "@x": true, "enum": {"$ref": "#/properties/$top/description", "enum": [{"$ref": "#/properties/$top"}]}},
            "required": ["$top", "q"],
            "dependentRequired": {"$top": ["@x"]},
            "dependentSchemas": {"@x": {"required": ["$top"]}},
            "if": {"properties": {"$top": {"const": 1}}}, "then": {"required": ["@x"]}
        }));
        assert_eq!(
            s,
            json!({
                "type": "object",
                "properties": {"dollar_top": {"type": "integer", "description": "How many. (sent to the server as \"$top\")"}, "q": {"$ref": "#/$defs/dollar_top"}, "at_x": true, "enum": {"$ref": "#/properties/dollar_top/description", "enum": [{"$ref": "#/properties/$top"}]}},
                "$defs": {"dollar_top": {"type": "integer", "description": "How many."}},
                "required": ["dollar_top", "q"],
                "dependentRequired": {"dollar_top": ["at_x"]},
                "dependentSchemas": {"at_x": {"required": ["dollar_top"]}},
                "if": {"properties": {"dollar_top": {"const": 1}}}, "then": {"required": ["at_x"]}
            })
        );
        assert_eq!(plan.renamed, [("dollar_top".to_owned(), "$top".to_owned()), ("at_x".to_owned(), "@x".to_owned())]);
        let paths: Vec<(&str, &str)> = cx.changes.iter().map(|d| (d.path.as_str(), d.rule)).collect();
        assert_eq!(paths, [("/properties/$top", "anthropic/property-renamed"), ("/properties/@x", "anthropic/property-renamed")]);
        assert!(cx.changes[0].message.contains("\"$top\"") && cx.changes[0].message.contains("\"dollar_top\""), "{}", cx.changes[0].message);
        assert_eq!(plan.apply(json!({"q": 1, "dollar_top": 5, "at_x": {"$top": 1}})), json!({"q": 1, "$top": 5, "@x": {"$top": 1}}));
    }

    /// The note on a renamed property is its own: a value of its schema under another key
    /// (`alt`, a `$ref` to the property as a whole) is sent as that key, so it is pointed at a
    /// copy of the schema without the note; references into the schema stay.
    #[test]
    fn a_ref_to_a_renamed_property_does_not_take_its_note() {
        let (s, plan, _) = rename(json!({
            "type": "object",
            "properties": {
                "$filter": {"type": "string", "description": "OData filter", "maxLength": 100},
                "alt": {"$ref": "#/properties/$filter"},
                "@tree": {"type": "object", "properties": {"kid": {"$ref": "#/properties/%40tree"}, "n": {"type": "integer"}}},
                "count": {"$ref": "#/properties/@tree/properties/n"},
                "$plain": {"type": "boolean"}
            },
            "$defs": {"dollar_filter": {"type": "null"}}
        }));
        let note = |key: &str| format!("(sent to the server as \"{key}\")");
        assert_eq!(s["properties"]["dollar_filter"]["description"], format!("OData filter {}", note("$filter")));
        assert_eq!(s["properties"]["alt"], json!({"$ref": "#/$defs/dollar_filter_2"}));
        assert_eq!(s["$defs"], json!({
            "dollar_filter": {"type": "null"},
            "dollar_filter_2": {"type": "string", "description": "OData filter", "maxLength": 100},
            "at_tree": {"type": "object", "properties": {"kid": {"$ref": "#/$defs/at_tree"}, "n": {"type": "integer"}}}
        }));
        // The property's own reference to itself goes to the copy too; one into it stays.
        assert_eq!(s["properties"]["at_tree"]["properties"]["kid"], json!({"$ref": "#/$defs/at_tree"}));
        assert_eq!(s["properties"]["at_tree"]["description"], note("@tree"));
        assert_eq!(s["properties"]["count"], json!({"$ref": "#/properties/at_tree/properties/n"}));
        assert_eq!(s["properties"]["dollar_plain"]["description"], note("$plain"));
        assert_eq!(plan.apply(json!({"dollar_filter": "a", "alt": "b", "dollar_plain": true})), json!({"$filter": "a", "alt": "b", "$plain": true}));
        // No reference to a renamed property: no `$defs` made.
        let (s, _, _) = rename(json!({"type": "object", "properties": {"$top": {"type": "integer"}, "q": {"$ref": "#/properties/$top/type"}}}));
        assert_eq!(s.get("$defs"), None);
    }

    #[test]
    fn nested_keys_stay_and_a_literal_elsewhere_is_untouched() {
        let (s, plan, cx) = rename(json!({
            "type": "object",
            "properties": {"$top": {"type": "object", "properties": {"$meta": {}, "dollar_top": {}}}, "list": {"type": "array", "items": {"type": "object", "properties": {"dollar_top": {}}}}}
        }));
        assert_eq!(s["properties"]["dollar_top"]["properties"], json!({"$meta": {}, "dollar_top": {}}));
        assert_eq!(cx.changes.len(), 1);
        let args = json!({"dollar_top": {"$meta": 1, "dollar_top": 2}, "list": [{"dollar_top": 3}]});
        assert_eq!(plan.apply(args), json!({"$top": {"$meta": 1, "dollar_top": 2}, "list": [{"dollar_top": 3}]}));
        // Nothing to rename: no plan, no change.
        let (s, plan, cx) = rename(json!({"type": "object", "properties": {"If-Match": {}, "a.b": {}}}));
        assert!(plan.is_empty() && cx.changes.is_empty());
        assert_eq!(s["properties"], json!({"If-Match": {}, "a.b": {}}));
    }

    #[test]
    fn a_root_reference_maps_its_objects_back_too() {
        let (s, plan, _) = rename(json!({
            "type": "object",
            "properties": {"$name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}, "parent": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}}
        }));
        assert_eq!(s["properties"]["children"]["items"], json!({"$ref": "#"}));
        let args = json!({"dollar_name": "a", "children": [{"dollar_name": "b", "children": []}], "parent": {"dollar_name": "p"}});
        assert_eq!(plan.apply(args), json!({"$name": "a", "children": [{"$name": "b", "children": []}], "parent": {"$name": "p"}}));
        assert_eq!(plan.apply(json!({"dollar_name": "a", "parent": null})), json!({"$name": "a", "parent": null}));
        // Through the JSON form too.
        let back = ArgPlan::from_value(&plan.to_value()).unwrap();
        assert_eq!(back, plan);
    }

    /// A value of the root's shape however the schema reaches `#`: through a definition (one
    /// that is `{$ref: "#"}`, one that refers to itself), `allOf`, `additionalProperties`,
    /// `prefixItems`, a `then`. The reviewer's cases sent the server `dollar_top`.
    #[test]
    fn a_root_reference_through_any_subschema_maps_back() {
        let (_, plan, cx) = rename(json!({
            "type": "object",
            "properties": {
                "$top": {"type": "integer"},
                "child": {"$ref": "#/$defs/Node"},
                "tree": {"$ref": "#/definitions/Tree"},
                "also": {"allOf": [{"$ref": "#"}], "description": "child"},
                "kids": {"type": "object", "properties": {"named": {"type": "object"}}, "additionalProperties": {"$ref": "#"}},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"$ref": "#"}], "items": {"type": "object"}},
                "cond": {"if": {"type": "object"}, "then": {"$ref": "#"}}
            },
            "$defs": {"Node": {"$ref": "#"}},
            "definitions": {"Tree": {"type": "object", "properties": {"top": {"$ref": "#"}, "next": {"$ref": "#/definitions/Tree"}}}}
        }));
        assert!(cx.problems.is_empty(), "{:?}", cx.problems);
        let two = json!({"dollar_top": 2});
        let sent = json!({
            "dollar_top": 1, "child": two, "tree": {"top": two, "next": {"next": {"top": two}}}, "also": two,
            "kids": {"a": two, "named": two}, "pair": ["dollar_top", two, two], "cond": two
        });
        let back = json!({"$top": 2});
        assert_eq!(
            plan.apply(sent.clone()),
            json!({
                "$top": 1, "child": back, "tree": {"top": back, "next": {"next": {"top": back}}}, "also": back,
                "kids": {"a": back, "named": two}, "pair": ["dollar_top", back, two], "cond": back
            })
        );
        let again = ArgPlan::from_value(&plan.to_value()).unwrap();
        assert_eq!(again, plan);
        assert_eq!(again.apply(sent.clone()), plan.apply(sent));
    }

    /// Where a plan cannot tell which values are the root's (a pattern's, `contains`'), a
    /// problem says so; a definition no root reference reaches adds nothing to the plan.
    #[test]
    fn a_root_reference_no_plan_can_place_is_reported() {
        let (_, plan, cx) = rename(json!({
            "type": "object",
            "properties": {
                "$top": {"type": "integer"},
                "byName": {"type": "object", "patternProperties": {"^x": {"$ref": "#"}}},
                "some": {"type": "array", "contains": {"$ref": "#/$defs/Root"}},
                "plain": {"$ref": "#/$defs/Leaf"}
            },
            "$defs": {"Root": {"$ref": "#"}, "Leaf": {"type": "object", "properties": {"$top": {}}}}
        }));
        let paths: Vec<(&str, &str)> = cx.problems.iter().map(|d| (d.path.as_str(), d.rule)).collect();
        assert_eq!(paths, [("/properties/byName/patternProperties", "anthropic/property-renamed"), ("/properties/some/contains", "anthropic/property-renamed")]);
        assert!(plan.properties.is_empty(), "{plan:?}");
        assert!(plan.defs.as_deref().is_some_and(|d| d.get("#/$defs/Leaf").is_none()), "{plan:?}");
        let sent = json!({"dollar_top": 1, "plain": {"$top": 2}, "byName": {"x": {"dollar_top": 2}}});
        assert_eq!(plan.apply(sent), json!({"$top": 1, "plain": {"$top": 2}, "byName": {"x": {"dollar_top": 2}}}));
    }

    /// The reviewer's case: `^\$` held `$filter` to three characters and `propertyNames`
    /// refused `dollar_filter`. A pattern that now reaches the new key only, and one beyond
    /// literals, are problems.
    #[test]
    fn patterns_and_property_names_hold_for_the_renamed_keys() {
        let (s, _, cx) = rename(json!({
            "type": "object",
            "properties": {"$filter": {"type": "string"}, "@x": true, "a b": {}},
            "patternProperties": {"^\\$": {"maxLength": 3}, "^at_": {"type": "integer"}, "[ ]": {"type": "object"}, "^q": {}},
            "propertyNames": {"pattern": "^[$@a-z ]+$"}
        }));
        assert_eq!(s["properties"]["dollar_filter"]["allOf"], json!([{"maxLength": 3}]));
        assert!(s["properties"]["at_x"].get("allOf").is_none());
        assert_eq!(s["propertyNames"], json!({"anyOf": [{"enum": ["dollar_filter", "at_x", "a_b"]}, {"pattern": "^[$@a-z ]+$"}]}));
        let changes: Vec<(&str, &str)> = cx.changes.iter().map(|d| (d.path.as_str(), d.rule)).filter(|(p, _)| !p.is_empty()).collect();
        assert!(changes.contains(&("/propertyNames", "anthropic/property-renamed")), "{changes:?}");
        assert_eq!(changes.iter().filter(|(p, _)| *p == "/properties/$filter").count(), 2, "renamed, and the pattern joined");
        let problems: Vec<&str> = cx.problems.iter().map(|d| d.path.as_str()).collect();
        // `^at_` reaches at_x only; `[ ]` is not read (for each renamed key).
        assert_eq!(problems, ["/properties/$filter", "/properties/@x", "/properties/@x", "/properties/a b"], "{:?}", cx.problems);
        assert!(cx.problems[1].message.contains("^at_") && cx.problems[0].message.contains("[ ]"));
    }

    /// The same keywords in the subschemas that describe the root object (`then`, `else`,
    /// `if`, `not`, `dependentSchemas`, and the branches under them): the reviewer's `then`
    /// pattern no longer reached `dollar_f` (its `maxLength` lost) and a `dependentSchemas`
    /// `propertyNames` refused it, nothing reported. Such a subschema may mean to refuse a
    /// declared key (it is conditional): its `propertyNames` holds the renamed key to what it
    /// said of the server's where that can be told, and says it cannot where not.
    #[test]
    fn patterns_and_property_names_in_place_hold_for_the_renamed_keys() {
        let (s, _, cx) = rename(json!({
            "type": "object",
            "properties": {"$f": {"type": "string"}, "mode": {"type": "string"}},
            "if": {"required": ["mode"], "properties": {"$f": {"const": "x"}}, "patternProperties": {"^\\$": {"minLength": 1}}},
            "then": {"patternProperties": {"^\\$": {"maxLength": 3}}},
            "else": {"allOf": [{"patternProperties": {"f$": {"maxLength": 4}}}, {"propertyNames": {"maxLength": 2}}], "not": {"propertyNames": {"enum": ["mode"]}}},
            "dependentSchemas": {"mode": {"propertyNames": {"pattern": "^[$a-z]+$"}}, "$f": {"anyOf": [{"propertyNames": {"pattern": "_"}}, {"required": ["mode"]}]}}
        }));
        assert_eq!(s["then"], json!({"patternProperties": {"^\\$": {"maxLength": 3}}, "properties": {"dollar_f": {"maxLength": 3}}}));
        assert_eq!(s["if"]["properties"], json!({"dollar_f": {"const": "x", "allOf": [{"minLength": 1}]}}));
        // `f$` reaches both keys: nothing to do. `maxLength: 2` admits `$f`, not `dollar_f`.
        assert_eq!(s["else"]["allOf"][0], json!({"patternProperties": {"f$": {"maxLength": 4}}}));
        assert_eq!(s["else"]["allOf"][1]["propertyNames"], json!({"anyOf": [{"enum": ["dollar_f"]}, {"maxLength": 2}]}));
        assert_eq!(s["else"]["not"], json!({"propertyNames": {"enum": ["mode"]}}), "refuses both keys alike");
        // Not read: admitted, and said. `_` refuses `$f` and admits `dollar_f`: refused by name.
        assert_eq!(s["dependentSchemas"]["mode"]["propertyNames"], json!({"anyOf": [{"enum": ["dollar_f"]}, {"pattern": "^[$a-z]+$"}]}));
        assert_eq!(s["dependentSchemas"]["dollar_f"]["anyOf"][0]["propertyNames"], json!({"allOf": [{"not": {"enum": ["dollar_f"]}}, {"pattern": "_"}]}));
        let changes: Vec<&str> = cx.changes.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            changes,
            ["/if/properties/$f", "/then/properties/$f", "/else/allOf/1/propertyNames", "/dependentSchemas/mode/propertyNames", "/dependentSchemas/$f/anyOf/0/propertyNames", "/properties/$f"],
            "{:?}",
            cx.changes
        );
        let problems: Vec<&str> = cx.problems.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(problems, ["/dependentSchemas/mode/propertyNames"], "{:?}", cx.problems);
        assert!(cx.problems[0].message.contains("\"$f\"") && cx.problems[0].message.contains("dollar_f"), "{}", cx.problems[0].message);
    }

    #[test]
    fn literal_patterns_are_read() {
        for (pattern, key, m) in [("^\\$", "$top", Some(true)), ("^\\$", "dollar_top", Some(false)), ("top$", "$top", Some(true)), ("o.t", "$odata.type", Some(false)), ("a.t", "$odata.type", Some(true)), ("^$", "", Some(true)), ("", "x", Some(true))] {
            assert_eq!(literal_match(pattern, key), m, "{pattern} {key}");
        }
        for pattern in ["^[a-z]+$", "\\d", "a|b", "(x)", "a*"] {
            assert_eq!(literal_match(pattern, "x"), None, "{pattern}");
        }
    }

    #[test]
    fn gemini_rule() {
        for ok in ["a", "_a", "A_9", &"k".repeat(64)] {
            assert!(gemini_key_ok(ok), "{ok}");
        }
        for bad in ["", "9a", "If-Match", "a.b", "$top", "é", &"k".repeat(65)] {
            assert!(!gemini_key_ok(bad), "{bad}");
        }
    }
}
