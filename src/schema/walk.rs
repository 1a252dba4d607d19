//! Which keywords hold subschemas. Everything else is a keyword *value* (or, inside
//! `properties`, a property *name*), never a schema to rewrite: this is what keeps a property
//! called `type`, `format`, `$ref` or `if` a property.

use serde_json::Value;

use crate::error::Result;
use crate::model::{JsonObject, Keyed as _};
use crate::schema::Cx;

/// Keywords whose value is a map from names to subschemas.
pub const MAP_KEYWORDS: &[&str] = &["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/// Keywords whose value is one subschema.
pub const SINGLE_KEYWORDS: &[&str] = &[
    "items",
    "additionalProperties",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Keywords whose value is an array of subschemas (`items` too, in its draft-04 tuple form).
pub const ARRAY_KEYWORDS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems", "items"];

/// What a keyword's value is, by the keyword's name alone (the lists above, as one `match`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keyword {
    /// In [`MAP_KEYWORDS`].
    Map,
    /// In [`SINGLE_KEYWORDS`], except `items`.
    Single,
    /// In [`ARRAY_KEYWORDS`], except `items`.
    Array,
    /// `items`: one subschema, or an array of them (draft 4 tuples).
    Items,
    /// Not a subschema position.
    Other,
}

/// Classifies a keyword (see [`Keyword`]).
pub fn keyword(key: &str) -> Keyword {
    // By length and first eight bytes (one integer compare per candidate, where a chain of string
    // comparisons would call memcmp for each), then in full for the keywords longer than eight.
    let k = key.as_bytes();
    let (kind, word) = match (k.len(), head(k)) {
        (2, IF) | (3, NOT) | (4, THEN | ELSE) | (8, CONTAINS) => return Keyword::Single,
        (5, ITEMS) => return Keyword::Items,
        (5, DEFS) => return Keyword::Map,
        (5, ANY_OF | ONE_OF | ALL_OF) => return Keyword::Array,
        (10, PROPERTIES_HEAD) => (Keyword::Map, "properties"),
        (17, PATTERN_PROPERTIES_HEAD) => (Keyword::Map, "patternProperties"),
        (11, DEFINITIONS_HEAD) => (Keyword::Map, "definitions"),
        (16, DEPENDENT_SCHEMAS_HEAD) => (Keyword::Map, "dependentSchemas"),
        (20, ADDITIONAL_HEAD) => (Keyword::Single, "additionalProperties"),
        (15, ADDITIONAL_HEAD) => (Keyword::Single, "additionalItems"),
        (13, PROPERTY_NAMES_HEAD) => (Keyword::Single, "propertyNames"),
        (21, UNEVALUATED_HEAD) => (Keyword::Single, "unevaluatedProperties"),
        (16, UNEVALUATED_HEAD) => (Keyword::Single, "unevaluatedItems"),
        (11, PREFIX_ITEMS_HEAD) => (Keyword::Array, "prefixItems"),
        _ => return Keyword::Other,
    };
    if rest_equal(k, word.as_bytes()) {
        kind
    } else {
        Keyword::Other
    }
}

/// Whether `k` equals `word`, given that their lengths and first eight bytes ([`head`]) are
/// equal: up to sixteen bytes by their last eight, one more load, where `==` would call
/// `memcmp` (a loop over bytes in wasm) for the keywords longer than eight bytes.
#[inline(always)]
pub(crate) fn rest_equal(k: &[u8], word: &[u8]) -> bool {
    debug_assert!(k.len() == word.len() && head(k) == head(word));
    match (k.last_chunk::<8>(), word.last_chunk::<8>()) {
        (Some(a), Some(b)) if k.len() <= 16 => u64::from_le_bytes(*a) == u64::from_le_bytes(*b),
        _ => k == word,
    }
}

/// The first eight bytes of `k` (zero-padded) as one integer, in at most two loads. Always
/// inlined: the size-optimised wasm build kept it out of line, a call per key classed, and
/// inlining it took 0.91x to 0.94x of the time of the strict and Gemini paths (paired), for
/// 327 B of gzip.
#[inline(always)]
pub(crate) fn head(k: &[u8]) -> u64 {
    let n = k.len();
    if let Some(first) = k.first_chunk::<8>() {
        u64::from_le_bytes(*first)
    } else if n >= 4 {
        // Two overlapping four-byte loads: where they overlap they hold the same bytes.
        let lo = u32::from_le_bytes([k[0], k[1], k[2], k[3]]) as u64;
        let hi = u32::from_le_bytes([k[n - 4], k[n - 3], k[n - 2], k[n - 1]]) as u64;
        lo | hi << (8 * (n - 4))
    } else {
        head_of(k)
    }
}

/// [`head`] for constants.
pub(crate) const fn head_of(k: &[u8]) -> u64 {
    let mut w = 0u64;
    let mut i = 0;
    while i < 8 && i < k.len() {
        w |= (k[i] as u64) << (8 * i);
        i += 1;
    }
    w
}

const IF: u64 = head_of(b"if");
const NOT: u64 = head_of(b"not");
const THEN: u64 = head_of(b"then");
const ELSE: u64 = head_of(b"else");
const CONTAINS: u64 = head_of(b"contains");
pub(crate) const ITEMS: u64 = head_of(b"items");
const DEFS: u64 = head_of(b"$defs");
const ANY_OF: u64 = head_of(b"anyOf");
const ONE_OF: u64 = head_of(b"oneOf");
const ALL_OF: u64 = head_of(b"allOf");
pub(crate) const PROPERTIES_HEAD: u64 = head_of(b"properties");
const PATTERN_PROPERTIES_HEAD: u64 = head_of(b"patternProperties");
const DEFINITIONS_HEAD: u64 = head_of(b"definitions");
const DEPENDENT_SCHEMAS_HEAD: u64 = head_of(b"dependentSchemas");
const ADDITIONAL_HEAD: u64 = head_of(b"additionalProperties");
const PROPERTY_NAMES_HEAD: u64 = head_of(b"propertyNames");
const UNEVALUATED_HEAD: u64 = head_of(b"unevaluatedProperties");
pub(crate) const PREFIX_ITEMS_HEAD: u64 = head_of(b"prefixItems");

/// What the value of a keyword that holds no subschema must be (JSON Schema 2020-12's
/// meta-schema, which Anthropic and OpenAI check a schema against), for the keywords where a
/// value of another kind is a mistake seen in the wild (`minLength: "5"`, `enum: "a"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueRule {
    /// A non-negative integer (`minLength`, `maxItems`...; `2.0` is one).
    Count,
    /// A number (`minimum`, `exclusiveMaximum`...).
    Number,
    /// A number above zero (`multipleOf`).
    Positive,
    /// A string (`format`, `pattern`, `title`, `description`...).
    Text,
    /// A boolean (`uniqueItems`, `readOnly`...).
    Flag,
    /// An array (`enum`, `examples`).
    List,
    /// A regular expression (`pattern`): a string that [`regex_parses`].
    Regex,
    /// An object of lists of names, each name once (`dependentRequired`): see [`name_list`].
    NameLists,
}

impl ValueRule {
    /// Whether a value fits: its JSON type (`model::json_type`'s names) and, for a number, the
    /// number.
    pub fn fits(self, json_type: &str, number: Option<&serde_json::Number>) -> bool {
        match self {
            Self::Count => number.is_some_and(|n| n.as_u64().is_some() || n.as_f64().is_some_and(|f| f >= 0.0 && f.fract() == 0.0)),
            Self::Number => number.is_some(),
            Self::Positive => number.and_then(serde_json::Number::as_f64).is_some_and(|f| f > 0.0),
            Self::Text => json_type == "string",
            Self::Flag => json_type == "boolean",
            Self::List => json_type == "array",
            Self::Regex => json_type == "string",
            Self::NameLists => json_type == "object",
        }
    }

    /// [`ValueRule::fits`] on the value itself, which also reads a `pattern`'s text and a
    /// `dependentRequired`'s lists.
    pub fn fits_value(self, v: &Value) -> bool {
        self.fits(crate::model::json_type(v), v.as_number())
            && match self {
                Self::Regex => v.as_str().is_some_and(regex_parses),
                Self::NameLists => v.as_object().is_some_and(|m| m.values().all(name_list)),
                _ => true,
            }
    }

    /// What a value must be, for messages.
    pub fn expected(self) -> &'static str {
        match self {
            Self::Count => "a non-negative integer",
            Self::Number => "a number",
            Self::Positive => "a number above zero",
            Self::Text => "a string",
            Self::Flag => "a boolean",
            Self::List => "an array",
            Self::Regex => "a regular expression",
            Self::NameLists => "an object of lists of names",
        }
    }
}

/// The [`ValueRule`] of a keyword, if it has one (by length and first eight bytes, as
/// [`keyword`]).
pub fn value_rule(key: &str) -> Option<ValueRule> {
    use ValueRule::*;
    let k = key.as_bytes();
    let (rule, word) = match (k.len(), head(k)) {
        (9, MIN_LENGTH_HEAD) => (Count, "minLength"),
        (9, MAX_LENGTH_HEAD) => (Count, "maxLength"),
        (8, MIN_ITEMS) | (8, MAX_ITEMS) => return Some(Count),
        (13, MIN_PROPERTIES_HEAD) => (Count, "minProperties"),
        (13, MAX_PROPERTIES_HEAD) => (Count, "maxProperties"),
        (11, MIN_CONTAINS_HEAD) => (Count, "minContains"),
        (11, MAX_CONTAINS_HEAD) => (Count, "maxContains"),
        (7, MINIMUM) | (7, MAXIMUM) => return Some(Number),
        (16, EXCLUSIVE_HEAD) => return (k[9..] == *b"Minimum" || k[9..] == *b"Maximum").then_some(Number),
        (10, MULTIPLE_OF_HEAD) => (Positive, "multipleOf"),
        (7, PATTERN) => return Some(Regex),
        (6, FORMAT) | (5, TITLE) | (8, COMMENT) | (3, ID) | (7, ANCHOR) | (7, SCHEMA) => return Some(Text),
        (11, DESCRIPTION_HEAD) => (Text, "description"),
        (16, CONTENT_MEDIA_TYPE_HEAD) => (Text, "contentMediaType"),
        (15, CONTENT_ENCODING_HEAD) => (Text, "contentEncoding"),
        (11, UNIQUE_ITEMS_HEAD) => (Flag, "uniqueItems"),
        (8, READ_ONLY) => return Some(Flag),
        (9, WRITE_ONLY_HEAD) => (Flag, "writeOnly"),
        (10, DEPRECATED_HEAD) => (Flag, "deprecated"),
        (8, NULLABLE) => return Some(Flag),
        (4, ENUM) | (8, EXAMPLES) => return Some(List),
        (17, DEPENDENT_REQUIRED_HEAD) => (NameLists, "dependentRequired"),
        _ => return None,
    };
    rest_equal(k, word.as_bytes()).then_some(rule)
}

pub(crate) const MIN_LENGTH_HEAD: u64 = head_of(b"minLength");
pub(crate) const MAX_LENGTH_HEAD: u64 = head_of(b"maxLength");
pub(crate) const MIN_ITEMS: u64 = head_of(b"minItems");
pub(crate) const MAX_ITEMS: u64 = head_of(b"maxItems");
pub(crate) const MIN_PROPERTIES_HEAD: u64 = head_of(b"minProperties");
pub(crate) const MAX_PROPERTIES_HEAD: u64 = head_of(b"maxProperties");
const MIN_CONTAINS_HEAD: u64 = head_of(b"minContains");
const MAX_CONTAINS_HEAD: u64 = head_of(b"maxContains");
pub(crate) const MINIMUM: u64 = head_of(b"minimum");
pub(crate) const MAXIMUM: u64 = head_of(b"maximum");
pub(crate) const EXCLUSIVE_HEAD: u64 = head_of(b"exclusiveMinimum");
const MULTIPLE_OF_HEAD: u64 = head_of(b"multipleOf");
const FORMAT: u64 = head_of(b"format");
const PATTERN: u64 = head_of(b"pattern");
const TITLE: u64 = head_of(b"title");
const COMMENT: u64 = head_of(b"$comment");
const DESCRIPTION_HEAD: u64 = head_of(b"description");
const CONTENT_MEDIA_TYPE_HEAD: u64 = head_of(b"contentMediaType");
const CONTENT_ENCODING_HEAD: u64 = head_of(b"contentEncoding");
const UNIQUE_ITEMS_HEAD: u64 = head_of(b"uniqueItems");
const READ_ONLY: u64 = head_of(b"readOnly");
const WRITE_ONLY_HEAD: u64 = head_of(b"writeOnly");
const DEPRECATED_HEAD: u64 = head_of(b"deprecated");
pub(crate) const ENUM: u64 = head_of(b"enum");
const EXAMPLES: u64 = head_of(b"examples");
const ID: u64 = head_of(b"$id");
const ANCHOR: u64 = head_of(b"$anchor");
const SCHEMA: u64 = head_of(b"$schema");
const NULLABLE: u64 = head_of(b"nullable");
const DEPENDENT_REQUIRED_HEAD: u64 = head_of(b"dependentRequired");

/// Whether a `dependentRequired` entry is a list of names, each once.
pub fn name_list(v: &Value) -> bool {
    matches!(v, Value::Array(names) if names.iter().enumerate().all(|(i, n)| n.is_string() && !names[..i].contains(n)))
}

/// Whether `p` reads as a regular expression, as far as every dialect agrees (ECMA-262's, which
/// JSON Schema names, and those of the providers that compile a `pattern`): no `(` left open and
/// no `)` without one, no `[` left open (a class ends at its first `]`, as ECMA-262 reads it), no
/// `\` at the end, no quantifier without something before it to repeat (`*a`, `a**`, `(|+)`),
/// and no `{n,m}` whose `n` is above `m`. A quantifier may be followed by one `?` (lazy) or `+`
/// (possessive, in the dialects that have it); a `{` that is no quantifier is a character.
pub fn regex_parses(p: &str) -> bool {
    let b = p.as_bytes();
    let (mut open, mut i) = (0usize, 0);
    // Whether what comes before may be repeated.
    let mut atom = false;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                if i + 1 == b.len() {
                    return false;
                }
                i += 2;
                atom = true;
                continue;
            }
            b'[' => {
                i += 1;
                loop {
                    match b.get(i) {
                        None => return false,
                        Some(b'\\') => i += 2,
                        Some(b']') => break,
                        Some(_) => i += 1,
                    }
                }
                atom = true;
            }
            b'(' => {
                open += 1;
                atom = false;
                // `(?:`, `(?=`, `(?<name>`...: the `?` repeats nothing.
                if b.get(i + 1) == Some(&b'?') {
                    i += 1;
                }
            }
            b')' => {
                if open == 0 {
                    return false;
                }
                open -= 1;
                atom = true;
            }
            b'|' | b'^' | b'$' => atom = false,
            b'*' | b'+' | b'?' | b'{' => {
                let end = if b[i] == b'{' {
                    match quantifier(&b[i..]) {
                        Some(Some(len)) => i + len,
                        // Out of order (`{3,1}`).
                        Some(None) => return false,
                        // A character.
                        None => {
                            i += 1;
                            atom = true;
                            continue;
                        }
                    }
                } else {
                    i + 1
                };
                if !atom {
                    return false;
                }
                i = end;
                if matches!(b.get(i), Some(b'?' | b'+')) {
                    i += 1;
                }
                atom = false;
                continue;
            }
            _ => atom = true,
        }
        i += 1;
    }
    open == 0
}

/// A `{n}`, `{n,}` or `{n,m}` at the start of `b`: its length, `None` inside when `n` is above
/// `m`; `None` when it is none.
fn quantifier(b: &[u8]) -> Option<Option<usize>> {
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let number = |from: usize, len: usize| std::str::from_utf8(&b[from..from + len]).ok()?.parse::<u64>().ok();
    let n = digits(1);
    if n == 0 {
        return None;
    }
    match b.get(1 + n) {
        Some(b'}') => Some(Some(n + 2)),
        Some(b',') => {
            let m = digits(2 + n);
            if b.get(2 + n + m) != Some(&b'}') {
                return None;
            }
            let ordered = m == 0 || match (number(1, n), number(2 + n, m)) {
                (Some(lo), Some(hi)) => lo <= hi,
                // Past u64: left to the engine.
                _ => true,
            };
            Some(ordered.then_some(n + m + 3))
        }
        _ => None,
    }
}

/// How a keyword holds subschemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A map of named subschemas.
    Map,
    /// One subschema.
    Single,
    /// An array of subschemas.
    Array,
    /// Not a subschema position.
    None,
}

/// Classifies `key` given its value.
pub fn slot(key: &str, value: &Value) -> Slot {
    match (keyword(key), value) {
        (Keyword::Map, Value::Object(_)) => Slot::Map,
        (Keyword::Array | Keyword::Items, Value::Array(_)) => Slot::Array,
        (Keyword::Single | Keyword::Items, Value::Object(_) | Value::Bool(_)) => Slot::Single,
        _ => Slot::None,
    }
}

/// Calls `f` on every direct subschema of `obj`, with the context's path pointing at it.
pub fn for_each_subschema_mut(
    obj: &mut JsonObject,
    cx: &mut Cx,
    f: &mut dyn FnMut(&mut Value, &mut Cx) -> Result<()>,
) -> Result<()> {
    for (key, value) in obj.iter_mut() {
        match slot(key, value) {
            Slot::Map => {
                if let Value::Object(map) = value {
                    cx.at(key, |cx| {
                        for (name, sub) in map.iter_mut() {
                            cx.at(name, |cx| f(sub, cx))?;
                        }
                        Ok(())
                    })?;
                }
            }
            Slot::Single => cx.at(key, |cx| f(value, cx))?,
            Slot::Array => {
                if let Value::Array(items) = value {
                    cx.at(key, |cx| {
                        for (i, sub) in items.iter_mut().enumerate() {
                            cx.at(&i.to_string(), |cx| f(sub, cx))?;
                        }
                        Ok(())
                    })?;
                }
            }
            Slot::None => {}
        }
    }
    Ok(())
}

/// Whether any node of the schema has the keyword `key` (a property so named is no keyword).
pub fn contains_keyword(v: &Value, key: &str, depth: usize) -> bool {
    if depth > 512 {
        return true;
    }
    match v {
        Value::Object(o) => {
            o.has(key)
                || o.iter().any(|(k, sub)| match slot(k, sub) {
                    Slot::Map => sub.as_object().is_some_and(|m| m.values().any(|s| contains_keyword(s, key, depth + 1))),
                    Slot::Single => contains_keyword(sub, key, depth + 1),
                    Slot::Array => sub.as_array().is_some_and(|a| a.iter().any(|s| contains_keyword(s, key, depth + 1))),
                    Slot::None => false,
                })
        }
        _ => false,
    }
}

/// Whether any node of the schema has a `$ref` (a cheap scan that skips the rewrite when not).
pub fn contains_ref(v: &Value, depth: usize) -> bool {
    if depth > 512 {
        return true; // let the bounded resolver decide
    }
    match v {
        Value::Object(o) => {
            o.has("$ref")
                || o.iter().any(|(k, sub)| match slot(k, sub) {
                    Slot::Map => sub.as_object().is_some_and(|m| m.values().any(|s| contains_ref(s, depth + 1))),
                    Slot::Single => contains_ref(sub, depth + 1),
                    Slot::Array => sub.as_array().is_some_and(|a| a.iter().any(|s| contains_ref(s, depth + 1))),
                    Slot::None => false,
                })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_rules_name_their_keywords_and_nothing_else() {
        use ValueRule::*;
        let table: &[(&str, ValueRule)] = &[
            ("minLength", Count), ("maxLength", Count), ("minItems", Count), ("maxItems", Count), ("minProperties", Count),
            ("maxProperties", Count), ("minContains", Count), ("maxContains", Count), ("minimum", Number), ("maximum", Number),
            ("exclusiveMinimum", Number), ("exclusiveMaximum", Number), ("multipleOf", Positive), ("format", Text),
            ("pattern", Regex), ("title", Text), ("$comment", Text), ("description", Text), ("contentMediaType", Text),
            ("contentEncoding", Text), ("$id", Text), ("$anchor", Text), ("$schema", Text), ("uniqueItems", Flag), ("readOnly", Flag),
            ("writeOnly", Flag), ("deprecated", Flag), ("nullable", Flag), ("enum", List), ("examples", List),
            ("dependentRequired", NameLists),
        ];
        for (k, rule) in table {
            assert_eq!(value_rule(k), Some(*rule), "{k}");
        }
        for k in ["", "type", "default", "const", "minLengths", "minLengt", "exclusiveMinimun", "exclusive_Minimum", "Enum", "example", "descriptio", "descriptions", "items", "properties", "required", "$ids", "$anchors", "dependentSchemas", "dependentRequires"] {
            assert_eq!(value_rule(k), None, "{k:?}");
        }
        let n = |v: serde_json::Value| (crate::model::json_type(&v), v);
        for (rule, good, bad) in [
            (Count, vec![n(0.into()), n(7.into()), n(serde_json::json!(2.0))], vec![n((-1).into()), n(serde_json::json!(1.5)), n("2".into()), n(serde_json::Value::Null)]),
            (Number, vec![n((-1).into()), n(serde_json::json!(0.5))], vec![n("1".into()), n(true.into())]),
            (Positive, vec![n(serde_json::json!(0.01)), n(3.into())], vec![n(0.into()), n((-2).into()), n("3".into())]),
            (Text, vec![n("x".into())], vec![n(5.into()), n(serde_json::json!(["x"]))]),
            (Flag, vec![n(false.into())], vec![n("yes".into()), n(1.into())]),
            (List, vec![n(serde_json::json!([])), n(serde_json::json!([1, "a"]))], vec![n("x".into()), n(serde_json::json!({}))]),
            (Regex, vec![n("^a+$".into())], vec![n(5.into())]),
            (NameLists, vec![n(serde_json::json!({}))], vec![n(serde_json::json!([]))]),
        ] {
            for (t, v) in good {
                assert!(rule.fits(t, v.as_number()), "{rule:?} {v}");
            }
            for (t, v) in bad {
                assert!(!rule.fits(t, v.as_number()), "{rule:?} {v}");
            }
        }
    }

    /// A `pattern` and a `dependentRequired` are read for what their kind does not say: a
    /// regular expression every dialect reads, lists of names each named once.
    #[test]
    fn values_are_read_past_their_kind() {
        for p in ["", "^a+$", "a{2}", "a{2,}", "a{2,3}?", "a{", "{x}", "x{,3}", "[(]", "[]a]", "[^]]", "\\(", "(?:a|b)*", "(?<n>a)\\k<n>", "(?=a)", "(?<!a)b", "a*+", "()", "a|", "\\d{1,2}-\\d+", "é+"] {
            assert!(regex_parses(p), "{p}");
            assert!(ValueRule::Regex.fits_value(&Value::String(p.into())), "{p}");
        }
        for p in ["(", "(a", ")", "a)", "(()", "[a", "[", "\\", "a\\", "*a", "+", "?", "a**", "a|*", "(*)", "(?", "^*", "{2}", "a{3,1}", "[\\]"] {
            assert!(!regex_parses(p), "{p}");
            assert!(!ValueRule::Regex.fits_value(&Value::String(p.into())), "{p}");
        }
        let lists = |v: Value| ValueRule::NameLists.fits_value(&v);
        assert!(lists(serde_json::json!({"a": ["b", "c"], "d": []})));
        for bad in [serde_json::json!({"a": "b"}), serde_json::json!({"a": ["b", "b"]}), serde_json::json!({"a": [1]}), serde_json::json!([["a"]])] {
            assert!(!lists(bad.clone()), "{bad}");
        }
    }

    #[test]
    fn head_is_the_first_eight_bytes() {
        for k in ["", "a", "ab", "abc", "type", "items", "format", "default", "required", "properties", "a\u{e9}\u{1f600}"] {
            for n in 0..=k.len() {
                assert_eq!(head(&k.as_bytes()[..n]), head_of(&k.as_bytes()[..n]), "{k} to {n}");
            }
        }
        assert_eq!(head(b"items"), u64::from_le_bytes(*b"items\0\0\0"));
    }

    #[test]
    fn keyword_agrees_with_the_lists() {
        for k in MAP_KEYWORDS {
            assert_eq!(keyword(k), Keyword::Map, "{k}");
        }
        for k in SINGLE_KEYWORDS.iter().filter(|k| **k != "items") {
            assert_eq!(keyword(k), Keyword::Single, "{k}");
        }
        for k in ARRAY_KEYWORDS.iter().filter(|k| **k != "items") {
            assert_eq!(keyword(k), Keyword::Array, "{k}");
        }
        assert_eq!(keyword("items"), Keyword::Items);
        for k in ["type", "enum", "format", "required", "description", "Properties", ""] {
            assert_eq!(keyword(k), Keyword::Other, "{k}");
        }
        // Every keyword with one byte changed, dropped or added is not a keyword: same length and
        // first eight bytes are not enough.
        for k in MAP_KEYWORDS.iter().chain(SINGLE_KEYWORDS).chain(ARRAY_KEYWORDS) {
            for i in 0..k.len() {
                let mut changed = k.as_bytes().to_vec();
                changed[i] ^= 0x20;
                let changed = String::from_utf8(changed).unwrap();
                assert_eq!(keyword(&changed), Keyword::Other, "{changed}");
                assert_eq!(keyword(&format!("{}{}", &k[..i], &k[i + 1..])), Keyword::Other, "{k} without byte {i}");
            }
            assert_eq!(keyword(&format!("{k}s")), Keyword::Other, "{k}s");
        }
    }
}
