//! The conversion entry points: MCP tools in, a provider's tool list out, with the name map
//! and the report.

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::args::ArgPlan;
use crate::error::{Error, ErrorCode, Result};
use crate::fast::{self, Node, Passed};
use crate::model::{description_text, json_size, json_type, object, read_json, repair_lone_surrogates_at, string, Put as _, ReadError, Tool};
use crate::naming::{NameFormat, NameMap, NamingOptions};
use crate::providers::{anthropic, compile, gemini, Compiled, GeminiMode, Provider, Relaxed, SchemaOptions};
use crate::report::{Diagnostic, Report, ToolReport};
use crate::schema::{process_json_schema_owned, Cx, Limits, RootShape, WRAPPED_PROPERTY};
use crate::text::Owned as _;

/// Conversion options (`options` in JS).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConvertOptions {
    /// Server name for tools that carry no `serverName`.
    pub server: Option<String>,
    /// Naming.
    pub naming: NamingOptions,
    /// Schema compilation.
    pub schema: SchemaOptions,
}

/// The keys [`ConvertOptions`] reads.
pub(crate) const OPTION_KEYS: [&str; 8] = ["server", "naming", "separator", "prefix", "portableNames", "strict", "geminiMode", "limits"];

/// The keys of [`NamingOptions`] among [`OPTION_KEYS`].
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) const NAMING_KEYS: [&str; 4] = ["naming", "separator", "prefix", "portableNames"];

/// Other names of options, which are none: a tool's field (`serverName`) and an old name of
/// `naming`. Refused naming the option meant, where ignoring them as unknown keys would name the
/// tools without the server, or in the default format, without a word.
const OTHER_NAMES: [(&str, &str); 2] = [("serverName", "server"), ("nameFormat", "naming")];

/// Refuses a key of the conversion's options (or `provider`) that `function` makes no use of
/// (`server` given to `prefixToolName`, which takes the server as its first argument; `limits`
/// given to `toolsSystemPrompt`), which would otherwise be read, checked and ignored:
/// `INVALID_OPTIONS` naming the keys `function` takes (`valid`). A key no options object has is
/// left to the usual rule ([`crate::error::unknown_key`]: a near miss refused, another ignored).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn refuse_unused_options(options: &Value, function: &str, valid: &[&str]) -> Result<()> {
    let Some(o) = options.as_object() else { return Ok(()) };
    let unused = o.iter().find(|(k, v)| !v.is_null() && !valid.contains(&k.as_str()) && (OPTION_KEYS.contains(&k.as_str()) || k.as_str() == "provider"));
    match unused {
        Some((key, _)) => Err(Error::new(ErrorCode::InvalidOptions, format!("options.{key} is no option of {function}() (its options are {})", valid.join(", ")))),
        None => Ok(()),
    }
}

/// The keys of `options.limits`.
pub(crate) const LIMIT_KEYS: [&str; 5] = ["maxDepth", "maxNodes", "maxRefUnroll", "maxTools", "maxStringBytes"];

impl ConvertOptions {
    /// Reads options from JSON (`undefined`/`null` → defaults), rejecting wrong types, and a key
    /// that is not one but within did-you-mean distance of one (`stict`; see
    /// [`crate::error::unknown_key`]); other keys are ignored, so that newer callers work with
    /// older builds.
    pub fn from_value(v: &Value) -> Result<Self> {
        Self::from_value_with(v, &[])
    }

    /// [`ConvertOptions::from_value`] for options that hold the keys `also` too (read by the
    /// caller: `toolsSystemPrompt`'s `template`), which are neither ignored nor near misses.
    pub(crate) fn from_value_with(v: &Value, also: &[&str]) -> Result<Self> {
        let arena = bumpalo::Bump::new();
        Self::read(&Node::of_value(v, &arena), also)
    }

    /// Reads options from JSON text as [`ConvertOptions::from_value`] reads the value of that
    /// text, through the pass-through path's tree: no `Value` is built (its maps' hashing is
    /// code that a conversion's first call would otherwise compile for a few bytes of
    /// options). `None` for text that reader leaves to serde_json (invalid JSON among it).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn from_json_text(text: &str) -> Option<Result<Self>> {
        let arena = bumpalo::Bump::new();
        let tree = fast::read_tree(text, &arena)?;
        Some(Self::read(&tree, &[]))
    }

    fn read(v: &Node, also: &[&str]) -> Result<Self> {
        let mut o = Self::default();
        // Filled in place: the options read so far are dropped at one place on an error, not
        // at each (less code for a conversion's first call to compile).
        o.read_entries(v, also)?;
        Ok(o)
    }

    fn read_entries(&mut self, v: &Node, also: &[&str]) -> Result<()> {
        let o = self;
        if v.is_null() {
            return Ok(());
        }
        let Some(entries) = v.entries() else { return Err(bad_option("options", "an object", v)) };
        for (key, val) in entries {
            match key {
                "server" => o.server = opt_string(key, val)?,
                "naming" | "separator" | "prefix" | "portableNames" => naming_option(&mut o.naming, key, val)?,
                "strict" => match val.as_bool() {
                    Some(b) => o.schema.strict = b,
                    None if val.is_null() => {}
                    None => return Err(bad_option("options.strict", "a boolean", val)),
                },
                "geminiMode" => o.schema.gemini_mode = gemini_mode(val)?,
                "limits" => o.schema.limits = limits_from_value(val)?,
                // Unknown keys are ignored so that newer callers work with older builds; a
                // misspelt one is not, nor another name of an option.
                _ => other_option(key, also)?,
            }
        }
        Ok(())
    }
}

/// The naming options (a function of its own, as the other options' less common readings).
#[inline(never)]
fn naming_option(naming: &mut NamingOptions, key: &str, val: &Node) -> Result<()> {
    match key {
        "naming" => {
            if let Some(s) = opt_string(key, val)? {
                naming.format = Some(NameFormat::parse(&s)?);
            }
        }
        "separator" => {
            if let Some(s) = opt_string(key, val)? {
                if s.is_empty() {
                    return Err(Error::new(ErrorCode::InvalidOptions, "options.separator must not be empty"));
                }
                naming.separator = s;
            }
        }
        "prefix" => {
            if let Some(s) = opt_string(key, val)? {
                naming.prefix = s;
            }
        }
        _ => match val.as_bool() {
            Some(b) => naming.portable = b,
            None if val.is_null() => {}
            None => return Err(bad_option("options.portableNames", "a boolean", val)),
        },
    }
    Ok(())
}

/// `options.geminiMode` (a function of its own, as the other options' less common readings: a
/// conversion's first call compiles what it calls).
#[inline(never)]
fn gemini_mode(v: &Node) -> Result<GeminiMode> {
    match opt_string("geminiMode", v)?.as_deref() {
        None | Some("parameters") => Ok(GeminiMode::Parameters),
        Some("parametersJsonSchema" | "jsonSchema") => Ok(GeminiMode::JsonSchema),
        Some(other) => Err(Error::new(
            ErrorCode::InvalidOptions,
            format!("options.geminiMode must be \"parameters\", \"parametersJsonSchema\" or \"jsonSchema\" (another spelling of \"parametersJsonSchema\"), got \"{other}\""),
        )),
    }
}

/// A key that is no option: refused when it is another name of one, or close to one.
#[inline(never)]
fn other_option(key: &str, also: &[&str]) -> Result<()> {
    match OTHER_NAMES.iter().find(|(other, _)| *other == key && !also.contains(other)) {
        Some((other, meant)) => Err(Error::new(ErrorCode::InvalidOptions, format!("options.{other} is no option: the option is options.{meant}"))),
        None => near_miss("options", key, &OPTION_KEYS, also),
    }
}

/// The largest value of a key of `options.limits`. Each is a bound on work (or, for `maxDepth`,
/// on the stack: see `Limits::DEPTH_CEILING`), so none is lifted: `Infinity` is refused.
fn limit_ceiling(key: &str) -> u64 {
    if key == "maxDepth" {
        Limits::DEPTH_CEILING as u64
    } else {
        1 << 30
    }
}

/// What a key of `options.limits` must be, as its refusal says (of `Infinity` too).
pub(crate) fn limit_range(key: &str) -> String {
    let max = limit_ceiling(key);
    let max = if max == 1 << 30 { "2^30".owned() } else { max.to_string() };
    format!("an integer from 1 to {max}")
}

#[inline(never)]
fn limits_from_value(v: &Node) -> Result<Limits> {
    let mut l = Limits::default();
    let Some(entries) = v.entries() else {
        return if v.is_null() { Ok(l) } else { Err(bad_option("options.limits", "an object", v)) };
    };
    for (key, val) in entries {
        let slot = match key {
            "maxDepth" => &mut l.max_depth,
            "maxNodes" => &mut l.max_nodes,
            "maxRefUnroll" => &mut l.max_ref_unroll,
            "maxTools" => &mut l.max_tools,
            "maxStringBytes" => &mut l.max_string_bytes,
            _ => {
                near_miss("options.limits", key, &LIMIT_KEYS, &[])?;
                continue;
            }
        };
        match val.as_u64() {
            Some(n) if (1..=limit_ceiling(key)).contains(&n) => *slot = n as usize,
            _ => {
                return Err(Error::new(ErrorCode::InvalidOptions, format!("options.limits.{key} must be {}, got {}", limit_range(key), val.to_text())));
            }
        }
    }
    Ok(l)
}

/// Refuses `key` of `what` when it is not a key of `known` or `also` but close to one
/// ([`crate::error::unknown_key`]); a function of its own, compiled apart from the reading of
/// the keys that are known.
#[inline(never)]
fn near_miss(what: &str, key: &str, known: &[&str], also: &[&str]) -> Result<()> {
    if also.contains(&key) {
        return Ok(());
    }
    let all: Vec<&str> = known.iter().chain(also).copied().collect();
    crate::error::unknown_key(what, key, &all, false).map_or(Ok(()), Err)
}

fn opt_string(key: &str, v: &Node) -> Result<Option<String>> {
    match v.as_str() {
        Some(s) => Ok(Some(s.owned())),
        None if v.is_null() => Ok(None),
        None => Err(bad_option(&format!("options.{key}"), "a string", v)),
    }
}

fn bad_option(what: &str, expected: &str, got: &Node) -> Error {
    Error::new(ErrorCode::InvalidOptions, format!("{what} must be {expected}, got {}", got.type_name()))
}

/// Reads the tool list: an array, `{tools:[...]}`, or a JSON-RPC response `{result:{tools}}`.
pub fn tools_from_value(v: Value) -> Result<Vec<Value>> {
    match v {
        Value::Array(a) => Ok(a),
        Value::Object(mut o) => {
            if let Some(Value::Array(a)) = o.remove("tools") {
                return Ok(a);
            }
            if let Some(Value::Object(mut r)) = o.remove("result") {
                if let Some(Value::Array(a)) = r.remove("tools") {
                    return Ok(a);
                }
            }
            Err(Error::new(ErrorCode::InvalidInput, "expected an array of tools, {tools:[...]} or a tools/list response"))
        }
        other => Err(Error::new(
            ErrorCode::InvalidInput,
            format!("expected an array of tools, got {}", json_type(&other)),
        )),
    }
}

/// The result of a conversion.
#[derive(Debug, Clone)]
pub struct Conversion {
    /// The provider's tool list, ready for the request body.
    pub tools: Value,
    /// Provider name → (server, tool), with argument plans.
    pub name_map: NameMap,
    /// What changed and what remains wrong.
    pub report: Report,
}

/// How tool-level failures are handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OnError {
    /// Fail the whole conversion (`convertMcpTools`).
    Throw,
    /// Record the failure in the report and leave the tool out (`checkTools`).
    Report,
}

/// Converts tools for a provider (`convertMcpTools`).
pub fn convert(input: Value, provider: Provider, opts: &ConvertOptions) -> Result<Conversion> {
    let (tools, problems) = admit(tools_from_value(input)?, opts, OnError::Throw)?;
    Ok(run(tools, Vec::new(), problems, provider, opts, OnError::Throw, true, None)?.into_conversion(provider, &opts.schema))
}

/// Converts and reports, never failing on a single tool (`checkTools`).
pub fn check(input: Value, provider: Provider, opts: &ConvertOptions) -> Result<Report> {
    let (tools, problems) = admit(tools_from_value(input)?, opts, OnError::Report)?;
    Ok(run(tools, Vec::new(), problems, provider, opts, OnError::Report, true, None)?.report)
}

/// JSON in, JSON out (`convertMcpToolsJson`).
///
/// Schemas the provider takes unchanged are passed straight through (see [`crate::fast`]);
/// anything the pass-through reader does not take (invalid JSON included) goes the general way,
/// so the output and the errors are the same either way.
pub fn convert_json(json: &str, provider: Provider, opts: &ConvertOptions) -> Result<String> {
    Ok(crate::text::into_string(convert_json_bytes(json, provider, opts)?))
}

/// [`convert_json`]'s text as UTF-8 bytes, for a caller that passes bytes on (the JS API given
/// a `Uint8Array`): what this crate writes is UTF-8 by construction, so it is not checked again.
pub fn convert_json_bytes(json: &str, provider: Provider, opts: &ConvertOptions) -> Result<Vec<u8>> {
    // The tools only: no report, and no argument plans either.
    Ok(run_text(json, provider, opts, OnError::Throw, false, false, false)?.tools)
}

/// A conversion whose tools are JSON text.
#[derive(Debug, Clone)]
pub struct TextConversion {
    /// The provider's tool list as JSON text.
    pub tools: String,
    /// Provider name → (server, tool), with argument plans.
    pub name_map: NameMap,
    /// What changed and what remains wrong.
    pub report: Report,
    /// The schemas left for the caller to put back (see [`convert_json_leaving_schemas`]);
    /// always empty otherwise.
    pub left_out: Vec<LeftOut>,
}

/// A tool whose schema [`convert_json_leaving_schemas`] wrote as `null`: the schema is the
/// tool's `inputSchema` exactly as it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeftOut {
    /// The tool's position in the output list (in `functionDeclarations` for Gemini).
    pub position: usize,
    /// The tool's index in the input list.
    pub tool: usize,
}

/// [`convert_json`] with the name map and the report (`convertMcpToolsDetailed`).
pub fn convert_json_detailed(json: &str, provider: Provider, opts: &ConvertOptions) -> Result<TextConversion> {
    run_text(json, provider, opts, OnError::Throw, true, true, false).map(Written::text)
}

/// [`convert_json`] (with the report when `detailed`, as [`convert_json_detailed`]) for a caller
/// that holds the input as objects: every schema that passes through exactly as it was read is
/// written as `null` and listed in [`TextConversion::left_out`], for the caller to put its own
/// object there. The JS object API does, which spares writing and re-reading most schemas.
pub fn convert_json_leaving_schemas(json: &str, provider: Provider, opts: &ConvertOptions, detailed: bool) -> Result<TextConversion> {
    run_text(json, provider, opts, OnError::Throw, detailed, true, true).map(Written::text)
}

/// [`convert_json`] with the name map, for callers that need no report (`McpHub.tools`,
/// `NameMap.fromTools`): the report holds only set-level problems, and `$ref` expansions are
/// shared as in [`convert_json`].
pub fn convert_json_named(json: &str, provider: Provider, opts: &ConvertOptions) -> Result<TextConversion> {
    run_text(json, provider, opts, OnError::Throw, false, true, false).map(Written::text)
}

/// [`check`] on JSON text (`checkTools`).
pub fn check_json(json: &str, provider: Provider, opts: &ConvertOptions) -> Result<Report> {
    Ok(run_text(json, provider, opts, OnError::Report, true, true, false)?.report)
}

/// [`check_json`] on a list of which some tools could not be written as JSON by the caller
/// (`JSON.stringify` threw for them: a cycle, a BigInt, a `toJSON` that throws, nesting past the
/// engine's stack). Each stands as `null` in `json`, and `unwritten` holds its error, whose
/// `path` is its index: its `tool/invalid` problem says that error, not that a tool must be an
/// object. The other tools are reported as ever.
pub fn check_json_unwritten(json: &str, provider: Provider, opts: &ConvertOptions, unwritten: &[Error]) -> Result<Report> {
    let mut report = check_json(json, provider, opts)?;
    for e in unwritten {
        let problem = report.problems.iter_mut().find(|p| p.rule == "tool/invalid" && e.path.as_deref() == Some(p.path.as_str()));
        if let Some(p) = problem {
            p.message = e.to_string();
        }
    }
    Ok(report)
}

/// `with_report: false` leaves the report's tool entries out (the JSON API returns tools only);
/// `plans: false` leaves out the argument plans of the schemas written on the pass-through path
/// (the name map is dropped). `leave_out`: see [`convert_json_leaving_schemas`].
fn run_text(json: &str, provider: Provider, opts: &ConvertOptions, on_error: OnError, with_report: bool, plans: bool, leave_out: bool) -> Result<Written> {
    let capacity = json.len() + 4096;
    if fast::applies(provider, &opts.schema, with_report) {
        // The borrowed tree's containers, freed at once when the conversion is written.
        let arena = bumpalo::Bump::new();
        let naming = fast::Naming { opts: &opts.naming, server: opts.server.as_deref() };
        if let Some(prepared) = fast::prepare_with(json, &arena, provider, &opts.schema, with_report, plans, Some(naming)) {
            // The schemas already written replace theirs: room for them at once, where growing
            // the output as it is written would copy it (Gemini's can be three times the input).
            // Nothing more when every tool is already in the output (`fast::Declarations`).
            let written = prepared.pass.iter().flatten().map(Passed::written_len).sum::<usize>();
            let (declared, names) = match prepared.declarations {
                Some(d) => ((d.count > 0).then_some((d.text, d.count)), Some(d.names)),
                None => (None, None),
            };
            let capacity = match &declared {
                Some((_, count)) if *count == prepared.tools.len() => 8,
                _ => capacity + written,
            };
            if let Ok(done) = run(prepared.tools, prepared.pass, Vec::new(), provider, opts, on_error, with_report, names) {
                return Ok(done.into_text(provider, &opts.schema, capacity, leave_out, declared));
            }
        }
    }
    run_general(json, provider, opts, on_error, with_report, capacity)
}

/// [`run_text`] the general way: the text read into a `Value`, every tool compiled from it.
#[inline(never)]
fn run_general(json: &str, provider: Provider, opts: &ConvertOptions, on_error: OnError, with_report: bool, capacity: usize) -> Result<Written> {
    // A number past a double's range is named as written: the text is not read (as the object
    // path has `Infinity`, which JSON makes `null`, the output would differ from it).
    let not_json = |e: ReadError| {
        e.into_error("the tools JSON", |e| {
            let huge = crate::model::is_number_out_of_range(&e).then(|| crate::model::first_huge_number(json)).flatten();
            let number = huge.map_or_else(String::new, |n| format!(" ({} is past a double's range)", crate::text::excerpt(n, 40)));
            Error::new(ErrorCode::InvalidJson, format!("tools are not valid JSON: {e}{number}"))
        })
    };
    // A list of which some tools nest past the reader's bound: each read alone, and those past
    // it refused one by one (a `tool/invalid` problem, or the error at its index), as a tool
    // past `limits.maxDepth` is, not the whole list.
    let apart = |text: &str, e: serde_json::Error, repaired: Vec<Diagnostic>, broken: &[(usize, &str)]| -> Result<Written> {
        let Some((tools, deep)) = read_tools_apart(text) else { return Err(not_json(ReadError::TooDeep(e))) };
        let (tools, problems) = admit_with(tools, opts, on_error, broken, &deep)?;
        let mut run = run(tools, Vec::new(), problems, provider, opts, on_error, with_report, None)?;
        run.report.problems.splice(0..0, repaired);
        Ok(run.into_text(provider, &opts.schema, capacity, false, None))
    };
    let (input, repaired, broken) = match read_json(json) {
        Ok(input) => (input, Vec::new(), Vec::new()),
        Err(ReadError::TooDeep(e)) => return apart(json, e, Vec::new(), &[]),
        // JS strings may hold lone surrogates (an emoji cut in half), which `JSON.stringify`
        // writes as `\udXXX` escapes that no UTF-8 text can hold: U+FFFD stands in, reported.
        Err(ReadError::Json(e)) => match repair_lone_surrogates_at(json) {
            Some((fixed, at)) => {
                let (repaired, broken) = (lone_surrogate_problems(&fixed, &at), lone_surrogate_names(&fixed, &at));
                match read_json(&fixed) {
                    Ok(input) => (input, repaired, broken),
                    Err(ReadError::TooDeep(e)) => return apart(&fixed, e, repaired, &broken),
                    Err(e) => return Err(not_json(e)),
                }
            }
            None => return Err(not_json(ReadError::Json(e))),
        },
        Err(e) => return Err(not_json(e)),
    };
    let (tools, problems) = admit_with(tools_from_value(input)?, opts, on_error, &broken, &[])?;
    let mut run = run(tools, Vec::new(), problems, provider, opts, on_error, with_report, None)?;
    run.report.problems.splice(0..0, repaired);
    Ok(run.into_text(provider, &opts.schema, capacity, false, None))
}

/// The elements of a top-level JSON array, each read alone: `None` for one that nests past the
/// reader's bound (and its index in the second list). `None` when the text is not such an array
/// or an element cannot be read for another reason (the caller's error then stands).
fn read_tools_apart(json: &str) -> Option<(Vec<Value>, Vec<usize>)> {
    let body = json.trim().strip_prefix('[')?.strip_suffix(']')?;
    let (mut tools, mut deep) = (Vec::new(), Vec::new());
    let (mut depth, mut in_string, mut escaped, mut start) = (0usize, false, false, 0usize);
    let element = |text: &str, tools: &mut Vec<Value>, deep: &mut Vec<usize>| -> Option<()> {
        match read_json(text) {
            Ok(v) => tools.push(v),
            Err(ReadError::TooDeep(_)) => {
                deep.push(tools.len());
                tools.push(Value::Null);
            }
            Err(_) => return None,
        }
        Some(())
    };
    for (i, b) in body.bytes().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            _ if in_string => {}
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth = depth.checked_sub(1)?,
            b',' if depth == 0 => {
                element(&body[start..i], &mut tools, &mut deep)?;
                start = i + 1;
            }
            _ => {}
        }
    }
    if !body[start..].trim().is_empty() || !tools.is_empty() {
        element(&body[start..], &mut tools, &mut deep)?;
    }
    (!deep.is_empty()).then_some((tools, deep))
}

/// The tools (their index, and the key) whose `name` or `serverName` held a lone surrogate
/// replaced at `at` in `fixed`: U+FFFD there would make the name another (two names that
/// differ in their lone surrogate alone, one), and the tool would be called by a name its
/// server does not have. Such a tool is not converted ([`admit_with`]).
fn lone_surrogate_names(fixed: &str, at: &[usize]) -> Vec<(usize, &'static str)> {
    crate::model::pointers_at(fixed, at).iter().filter_map(|p| name_at(p)).collect()
}

/// The tool (its index) and the key, `name` or `serverName`, that `pointer` (into the input)
/// names, if it names one.
fn name_at(pointer: &str) -> Option<(usize, &'static str)> {
    // An array of tools, `{tools}`, or a `tools/list` result (`{result: {tools}}`).
    let rest = pointer.strip_prefix("/result/tools").or_else(|| pointer.strip_prefix("/tools")).unwrap_or(pointer);
    let (index, key) = rest.strip_prefix('/')?.split_once('/')?;
    let key = ["name", "serverName"].into_iter().find(|k| *k == key)?;
    Some((index.parse().ok()?, key))
}

/// Set-level problems for lone surrogate escapes replaced at `at` in `fixed` (the input's
/// JSON, repaired): where each was (its input pointer), the first [`MAX_LISTED`] of them.
fn lone_surrogate_problems(fixed: &str, at: &[usize]) -> Vec<Diagnostic> {
    const MAX_LISTED: usize = 8;
    let mut problems: Vec<Diagnostic> = crate::model::pointers_at(fixed, &at[..at.len().min(MAX_LISTED)])
        .into_iter()
        .map(|path| Diagnostic {
            // In a name, the tool is left out (its own problem says so); elsewhere U+FFFD stands in.
            message: match name_at(&path) {
                Some((i, key)) => format!("a lone UTF-16 surrogate (half of a character, as text cut inside an emoji leaves it) in a {key}, which no name can hold: tool {i} is left out"),
                None => "a lone UTF-16 surrogate (half of a character, as text cut inside an emoji leaves it) is no Unicode text and cannot be sent: written as U+FFFD".owned(),
            },
            path,
            rule: "input/lone-surrogate",
        })
        .collect();
    if at.len() > MAX_LISTED {
        problems.push(Diagnostic {
            path: String::new(),
            rule: "input/lone-surrogate",
            message: format!("{} more lone UTF-16 surrogates written as U+FFFD ({} in all)", at.len() - MAX_LISTED, at.len()),
        });
    }
    problems
}

/// A conversion whose tools are compiled but not yet in the provider's wrapper: [`run`]'s
/// result, made into a `Value` ([`Run::into_conversion`]) or written straight as JSON text
/// ([`Run::into_text`]), which saves building a map per tool only to write it out.
struct Run<'a> {
    tools: Vec<Head<'a>>,
    /// The emitted tools in output order: the index in `tools`, the compiled schema, and the
    /// pass-through schema, if any (see [`crate::fast`]).
    emitted: Vec<(usize, Compiled, Option<Passed<'a>>)>,
    name_map: NameMap,
    report: Report,
}

impl Run<'_> {
    fn into_conversion(self, provider: Provider, opts: &SchemaOptions) -> Conversion {
        let Run { tools, emitted, name_map, report } = self;
        let out: Vec<Value> = emitted
            .into_iter()
            .map(|(i, c, _)| emit(provider, opts, provider_name(&name_map, i), tools[i].description_text(), c))
            .collect();
        let tools = match provider {
            Provider::Gemini | Provider::Vertex => {
                if out.is_empty() {
                    Value::Array(Vec::new())
                } else {
                    Value::Array(vec![object([("functionDeclarations", Value::Array(out))])])
                }
            }
            _ => Value::Array(out),
        };
        Conversion { tools, name_map, report }
    }

    /// `declared`: the output already written by the pass-through path, opened, and how many of
    /// the first emitted tools it holds (see [`fast::Declarations`]).
    fn into_text(self, provider: Provider, opts: &SchemaOptions, capacity: usize, leave_out: bool, declared: Option<(Vec<u8>, usize)>) -> Written {
        let Run { tools, emitted, name_map, report } = self;
        let (mut out, skip) = match declared {
            Some((mut text, count)) => {
                text.reserve(capacity);
                (text, count)
            }
            None => (Vec::with_capacity(capacity), 0),
        };
        let mut left_out = Vec::new();
        let gemini = matches!(provider, Provider::Gemini | Provider::Vertex);
        if gemini && emitted.is_empty() {
            out.extend_from_slice(b"[]");
        } else {
            if skip == 0 {
                if gemini {
                    out.extend_from_slice(fast::DECLARATIONS_OPEN);
                }
                out.push(b'[');
            }
            for (k, (i, c, pass)) in emitted.into_iter().enumerate() {
                if k < skip {
                    debug_assert!(matches!(pass, Some(Passed::Declared)), "the first tools are declared");
                    continue;
                }
                if k > 0 {
                    out.push(b',');
                }
                let pass = pass.as_ref();
                let leave = leave_out && matches!(pass, Some(Passed::AsIs(_, true, _)));
                if leave {
                    left_out.push(LeftOut { position: k, tool: i });
                }
                write_tool(&mut out, provider, opts, provider_name(&name_map, i), tools[i].description_text(), c, pass, leave);
            }
            out.push(b']');
            if gemini {
                out.extend_from_slice(b"}]");
            }
        }
        debug_assert!(std::str::from_utf8(&out).is_ok(), "the writers write UTF-8");
        Written { tools: out, name_map, report, left_out }
    }
}

/// [`TextConversion`] with its text still bytes ([`Run::into_text`]).
struct Written {
    tools: Vec<u8>,
    name_map: NameMap,
    report: Report,
    left_out: Vec<LeftOut>,
}

impl Written {
    fn text(self) -> TextConversion {
        let Written { tools, name_map, report, left_out } = self;
        TextConversion { tools: crate::text::into_string(tools), name_map, report, left_out }
    }
}

/// The provider name of tool `i`.
fn provider_name(name_map: &NameMap, i: usize) -> &str {
    name_map.entries().get(i).map_or("", |e| e.name.as_str())
}

/// A tool's report before its compilation: who it is, and its rename if it has one.
// Not inlined into `run`, like the other parts of a conversion that the JSON API's first call
// does not run: a function is compiled when it is first called (see bench/README.md, "Cold start").
#[inline(never)]
fn tool_report(tool: &Head, server: Option<String>, name: &str, clashed: Option<&HashSet<&str>>) -> ToolReport {
    let mut tr = ToolReport { tool: tool.name.clone().into_owned(), server, name: name.owned(), changes: tool.left_out.clone(), ..ToolReport::default() };
    if name != tool.name {
        let lost = crate::naming::lost_letters(&tool.name);
        // Letters the model cannot read first (whether or not the name also clashed: the
        // change an app looks for); then the name a clash gave it, not the name it would have
        // had (which the copy that kept it is named).
        let (rule, message) = if !lost.is_empty() {
            ("names/sanitized", lost_letters_message(name, &tool.name, &lost))
        } else if clashed.is_some_and(|c| c.contains(name)) {
            ("names/collision", format!("provider name \"{name}\" (the name map resolves it back)"))
        } else {
            ("names/rename", format!("provider name \"{name}\" (the name map resolves it back)"))
        };
        tr.changes.push(Diagnostic { path: String::new(), rule, message });
    }
    tr
}

/// The message of a `names/sanitized` change: the provider name, the letters and digits of the
/// tool's name it lost (the first [`MAX_LISTED`] of them), and where the name is said instead.
fn lost_letters_message(name: &str, tool: &str, lost: &[char]) -> String {
    const MAX_LISTED: usize = 8;
    let mut listed: Vec<String> = lost.iter().take(MAX_LISTED).map(char::to_string).collect();
    if lost.len() > MAX_LISTED {
        listed.push(format!("and {} more", lost.len() - MAX_LISTED));
    }
    format!(
        "provider name \"{name}\" (the name map resolves it back): {} has letters or digits no provider's names can hold ({}), each written as \"_\"; the description starts with the name ({})",
        crate::text::quote(tool),
        listed.join(", "),
        crate::text::quote(&format!("{}{tool}", crate::naming::TOOL_NAME_LABEL))
    )
}

/// What a conversion reads of a tool (see [`Tool`]): the rest of a tool is not sent to a
/// provider. Borrowed from the input text on the pass-through path ([`fast::prepare`]).
#[derive(Debug)]
pub(crate) struct Head<'a> {
    pub name: Cow<'a, str>,
    pub title: Option<Cow<'a, str>>,
    pub description: Option<Cow<'a, str>>,
    pub server_name: Option<Cow<'a, str>>,
    /// `Value::Null` when absent or passed through.
    pub input_schema: Value,
    /// What of the tool is not sent: a `title` or `description` that is not text (the
    /// pass-through path leaves such a tool to the general one).
    pub left_out: Vec<Diagnostic>,
}

impl Head<'_> {
    fn of_tool(t: Tool) -> Head<'static> {
        let Tool { name, title, description, input_schema, server_name, extra, .. } = t;
        // `Tool::from_value` leaves a field that is not a string in `extra`.
        let left_out = ["title", "description"]
            .into_iter()
            .filter_map(|k| extra.get(k).map(|v| (k, v)))
            .map(|(k, v)| Diagnostic {
                path: String::new(),
                rule: "tool/not-text",
                message: format!("the tool's {k} is not a string ({}): not sent", json_type(v)),
            })
            .collect();
        let mut head = Head { name: name.into(), title: title.map(Cow::Owned), description: description.map(Cow::Owned), server_name: server_name.map(Cow::Owned), input_schema, left_out };
        head.name_lost_letters();
        head
    }

    pub(crate) fn description_text(&self) -> &str {
        description_text(self.description.as_deref(), self.title.as_deref())
    }

    /// A tool whose name has letters or digits no provider name can hold (`検索` is
    /// `mcp__docs_____nmd3d66h`) is sent with its name at the start of its description (or its
    /// title, which stands in for one), where the model reads it: see
    /// [`crate::naming::named_description`]. Any other tool's is left as it is.
    pub(crate) fn name_lost_letters(&mut self) {
        if let Some(text) = crate::naming::named_description(crate::naming::TOOL_NAME_LABEL, &self.name, self.description_text()) {
            self.description = Some(Cow::Owned(text));
        }
    }
}

/// The nesting a tool's JSON may have: each schema level is at most a few JSON levels
/// (`properties` → name → schema), under a few of the tool's own.
pub(crate) fn max_json_depth(limits: &Limits) -> usize {
    limits.depth_limit().saturating_mul(3).saturating_add(8)
}

/// Reads `raw` tools within the limits. With [`OnError::Report`] a tool that fails is left out
/// and its problem returned.
fn admit(raw: Vec<Value>, opts: &ConvertOptions, on_error: OnError) -> Result<(Vec<Head<'static>>, Vec<Diagnostic>)> {
    admit_with(raw, opts, on_error, &[], &[])
}

/// [`admit`], with the tools whose name (or server name) held a lone surrogate
/// ([`lone_surrogate_names`]) refused as `INVALID_TOOL`, and those at `deep` (nested past the
/// reader's bound: [`read_tools_apart`]) as `LIMIT_EXCEEDED`, each at its index in turn.
fn admit_with(raw: Vec<Value>, opts: &ConvertOptions, on_error: OnError, broken: &[(usize, &str)], deep: &[usize]) -> Result<(Vec<Head<'static>>, Vec<Diagnostic>)> {
    let limits = opts.schema.limits;
    if raw.len() > limits.max_tools {
        return Err(Error::new(
            ErrorCode::LimitExceeded,
            format!("{} tools given, more than the limit of {} (limits.maxTools: raise it, or give fewer tools)", raw.len(), limits.max_tools),
        ));
    }
    let raw_len = raw.len();
    let mut tools = Vec::with_capacity(raw_len);
    let mut problems = Vec::new();
    for (i, v) in raw.into_iter().enumerate() {
        let admitted = match broken.iter().find(|(at, _)| *at == i) {
            // Nested past the reader's bound ([`read_tools_apart`]): not read at all.
            _ if deep.contains(&i) => Err(Error::new(
                ErrorCode::LimitExceeded,
                format!(
                    "tool definition is nested more than {} levels deep, beyond the limit for {} schema levels (limits.maxDepth)",
                    crate::model::MAX_JSON_NESTING,
                    limits.depth_limit()
                ),
            )),
            Some((_, key)) => Err(Error::new(
                ErrorCode::InvalidTool,
                format!(
                    "tool at index {i}: its {key} holds a lone UTF-16 surrogate (half of a character, as text cut inside an emoji leaves it), which no name can hold: read as U+FFFD it would be another name"
                ),
            )),
            None => admit_one(v, i, &limits),
        };
        match admitted {
            Ok(t) => tools.push(Head::of_tool(t)),
            Err(e) if on_error == OnError::Report => problems.push(Diagnostic { path: format!("/{i}"), rule: "tool/invalid", message: e.to_string() }),
            Err(mut e) => {
                // One tool fails the whole call: say how to find each such tool at once.
                if raw_len > 1 {
                    e.message.push_str(&format!(" (one tool of {raw_len} fails the whole conversion: checkTools reports each that cannot be converted, so that they can be fixed or left out)"));
                }
                return Err(e.with_path(format!("/{i}")));
            }
        }
    }
    Ok((tools, problems))
}

/// Reads the tool at index `i` of a list within the limits.
fn admit_one(v: Value, i: usize, limits: &Limits) -> Result<Tool> {
    let size = json_size(&v);
    let name = || v.get("name").and_then(Value::as_str).unwrap_or("?").chars().take(200).collect::<String>();
    if size.depth > max_json_depth(limits) {
        Err(Error::new(
            ErrorCode::LimitExceeded,
            format!("tool definition is nested {} levels deep, beyond the limit for {} schema levels (limits.maxDepth)", size.depth, limits.depth_limit()),
        )
        .with_tool(&name()))
    } else if size.nodes > limits.max_nodes {
        Err(Error::new(
            ErrorCode::LimitExceeded,
            format!("tool definition has {} JSON values, more than limits.maxNodes ({})", size.nodes, limits.max_nodes),
        )
        .with_tool(&name()))
    } else if size.longest_string > limits.max_string_bytes {
        Err(Error::new(
            ErrorCode::LimitExceeded,
            format!("tool definition has a string of {} bytes, more than limits.maxStringBytes ({})", size.longest_string, limits.max_string_bytes),
        )
        .with_tool(&name()))
    } else {
        Tool::from_value(v, i)
    }
}

/// Why the tool at `index` of a list cannot be converted for a provider: the error converting
/// the list fails with for that tool, or `None` when the tool converts. For a caller that
/// leaves out the tools that cannot be converted and converts the others (`McpHub.tools`); a
/// list that fails while each of its tools converts alone fails as a whole (`limits.maxTools`).
pub(crate) fn tool_error(tool: &Value, index: usize, provider: Provider, opts: &ConvertOptions) -> Option<Error> {
    let limits = opts.schema.limits;
    let tool = match admit_one(tool.clone(), index, &limits) {
        Ok(t) => t,
        Err(e) => return Some(e.with_path(format!("/{index}"))),
    };
    compile_tool(tool.input_schema, provider, &opts.schema, &mut Cx::new(limits)).err().map(|e| e.with_tool(&tool.name))
}

/// Converts admitted tools ([`admit`], or [`fast::prepare`] within the same limits), after
/// the `problems` of those left out. A tool with an entry in `pass` has its schema passed
/// through (see [`crate::fast`]; its `input_schema` is `null`): it is not compiled.
/// Without `with_report` the report gets no per-tool entries (for callers that drop it).
#[allow(clippy::too_many_arguments)]
fn run<'a>(
    mut tools: Vec<Head<'a>>,
    mut pass: Vec<Option<Passed<'a>>>,
    problems: Vec<Diagnostic>,
    provider: Provider,
    opts: &ConvertOptions,
    on_error: OnError,
    with_report: bool,
    names: Option<(NameMap, Vec<Diagnostic>)>,
) -> Result<Run<'a>> {
    pass.resize_with(tools.len(), || None);
    crate::naming::check_options(&opts.naming, opts.naming.rule(provider.name_rule()))?;
    let limits = opts.schema.limits;
    let mut report = Report { provider: provider.as_str().into(), problems, ..Report::default() };
    let servers: Vec<Option<String>> = tools
        .iter()
        .map(|t| t.server_name.as_deref().or(opts.server.as_deref()).filter(|s| !s.is_empty()).map(str::to_owned))
        .collect();
    // Built by the pass-through path already when it wrote declarations (from the same pairs).
    let (mut name_map, name_diags) = names.unwrap_or_else(|| {
        let pairs: Vec<(Option<&str>, &str)> = servers.iter().zip(&tools).map(|(s, t)| (s.as_deref(), t.name.as_ref())).collect();
        NameMap::build(&pairs, &opts.naming, opts.naming.rule(provider.name_rule()))
    });
    report.problems.extend(name_diags.iter().filter(|d| d.rule == "names/duplicate-tool").cloned());
    // The names clashes gave, for the tools' reports; not built without a report (an empty
    // set still reads the hasher's keys).
    let clashed = with_report.then(|| clashed_names(&name_diags));

    let mut compiled: Vec<Option<Compiled>> = Vec::with_capacity(tools.len());
    // With a report, each input schema as given: the diagnostics' paths are pointers into it
    // (see `report::input_paths`). A schema passed through has nothing to report.
    let mut inputs: Vec<Value> = Vec::new();
    for (i, tool) in tools.iter_mut().enumerate() {
        if with_report {
            inputs.push(if pass[i].is_some() { Value::Null } else { tool.input_schema.clone() });
        }
        // Without a report, `$ref` expansions may be shared (see `schema::refs::Shared`).
        let mut cx = Cx::new(limits).share_refs(!with_report);
        let result = if let Some(p) = &mut pass[i] {
            // Clean for this provider (see fast::is_clean), or lowered for Gemini (fast::gemini)
            // or a strict mode (fast::strict): nothing to change, or nothing to report.
            Ok(match p {
                // For Anthropic and Bedrock the schema as it is stays, should the set-level limits
                // leave the tool out of strict mode (written from `base` then).
                Passed::Strict { plan, .. } => strict_passed(plan, provider),
                _ => {
                    let strict = matches!(provider, Provider::OpenAi | Provider::OpenAiResponses).then_some(false);
                    Compiled { schema: Some(Value::Null), strict, plan: ArgPlan::default(), relaxed: None }
                }
            })
        } else {
            // Moved into the compiler, not copied: nothing reads it afterwards.
            compile_tool(std::mem::take(&mut tool.input_schema), provider, &opts.schema, &mut cx)
        };
        // The JSON API returns the tools only: no per-tool report is built for it.
        let mut tr = match with_report {
            true => Some(tool_report(tool, servers[i].clone(), provider_name(&name_map, i), clashed.as_ref())),
            false => None,
        };
        match result {
            Ok(mut c) => {
                // Ollama reads no description on the parameters: the root's goes to the tool's.
                if provider == Provider::Ollama {
                    ollama_root_description(tool, &mut c);
                }
                if let Some(tr) = &mut tr {
                    // Asked for strict mode, a provider that has one: `false` when the tool fell
                    // back (Anthropic and Bedrock send no `strict` then; the report says so).
                    tr.strict = c.strict.or((opts.schema.strict && provider.has_strict()).then_some(false));
                }
                if let Some(e) = name_map.entry_mut(i) {
                    e.args = (!c.plan.is_empty()).then(|| c.plan.clone());
                }
                compiled.push(Some(c));
            }
            Err(e) if on_error == OnError::Report => {
                if let Some(tr) = &mut tr {
                    tr.problems.push(Diagnostic { path: e.path.clone().unwrap_or_default(), rule: "tool/error", message: e.message });
                }
                compiled.push(None);
            }
            Err(e) => return Err(e.with_tool(&tool.name)),
        }
        if let Some(mut tr) = tr {
            tr.changes.append(&mut cx.changes);
            tr.problems.append(&mut cx.problems);
            report.tools.push(tr);
        }
    }

    if let (Some(rules), true) = (provider.claude_strict(), opts.schema.strict) {
        enforce_claude_strict_limits(&mut compiled, &pass, &mut report, rules);
    }
    for (tr, input) in report.tools.iter_mut().zip(&inputs) {
        crate::report::input_paths(input, &mut tr.changes);
        crate::report::input_paths(input, &mut tr.problems);
    }
    if let Some((max, why)) = provider.max_tools() {
        let n = compiled.iter().filter(|c| c.is_some()).count();
        if n > max {
            report.problems.push(too_many_tools(n, why));
        }
    }

    // OpenAI's fallback sends `strict: false` beside strict tools, which OpenAI takes and some
    // OpenAI-compatible APIs refuse for the whole request (Cerebras).
    let (on, off) = compiled.iter().flatten().fold((0, 0), |(on, off), c| match c.strict {
        Some(true) => (on + 1, off),
        Some(false) => (on, off + 1),
        None => (on, off),
    });
    if on > 0 && off > 0 {
        report.problems.push(strict_mixed(on, off));
    }

    let emitted = compiled.into_iter().enumerate().filter_map(|(i, c)| c.map(|c| (i, c, pass[i].take()))).collect();
    Ok(Run { tools, emitted, name_map, report })
}

// What follows are parts of [`run`] that its common case does not run, as functions of their
// own: a function is compiled on its first call (see bench/README.md, "Cold start").

/// The names clashes gave (`...; named "X"`, X a provider name, which holds no quote), for
/// the tools' reports: a set, as thousands of tools may share a name.
#[inline(never)]
fn clashed_names(name_diags: &[Diagnostic]) -> HashSet<&str> {
    name_diags.iter().filter_map(|d| d.message.rsplit_once("; named \"")).map(|(_, n)| n.strip_suffix('"').unwrap_or(n)).collect()
}

/// A tool whose strict schema the pass-through path wrote: nothing to report, as the strict
/// schema needed no change.
#[inline(never)]
fn strict_passed(plan: &mut Box<ArgPlan>, provider: Provider) -> Compiled {
    let relaxed = provider.claude_strict().map(|_| Relaxed { schema: Value::Null, strict_changes: 0, strict_problems: 0 });
    Compiled { schema: Some(Value::Null), strict: Some(true), plan: *std::mem::take(plan), relaxed }
}

/// Ollama reads no description on the parameters: the root's goes to the tool's.
#[inline(never)]
fn ollama_root_description(tool: &mut Head, c: &mut Compiled) {
    if let Some(root) = crate::providers::ollama::take_root_description(c) {
        tool.description = Some(Cow::Owned(crate::providers::ollama::with_root_description(tool.description_text(), &root)));
    }
}

#[cold]
#[inline(never)]
fn too_many_tools(n: usize, why: &str) -> Diagnostic {
    Diagnostic { path: String::new(), rule: "limits/tool-count", message: format!("{n} tools: {why}") }
}

#[cold]
#[inline(never)]
fn strict_mixed(on: usize, off: usize) -> Diagnostic {
    Diagnostic {
        path: String::new(),
        rule: "openai/strict-mixed",
        message: format!(
            "the tools mix strict: true ({on}) and strict: false ({off}, which strict mode cannot hold): OpenAI takes the mix, some OpenAI-compatible APIs refuse the whole request for it (Cerebras: \"Tools with mixed values for 'strict' are not allowed\")"
        ),
    }
}

#[inline(never)]
fn compile_tool(schema: Value, provider: Provider, opts: &SchemaOptions, cx: &mut Cx) -> Result<Compiled> {
    let (root, shape) = process_json_schema_owned(schema, cx);
    crate::schema::lower::report_disjoint_values(&root, cx);
    let mut c = compile(provider, root, opts, cx)?;
    if shape == RootShape::Wrapped {
        let mut wrapper = ArgPlan { unwrap: Some(WRAPPED_PROPERTY.into()), ..ArgPlan::default() };
        wrapper.properties = std::mem::take(&mut c.plan.properties);
        wrapper.null_means_absent = std::mem::take(&mut c.plan.null_means_absent);
        wrapper.renamed = std::mem::take(&mut c.plan.renamed);
        c.plan = wrapper;
    }
    Ok(c)
}

/// Claude (Anthropic, Bedrock) allows 20 strict tools, 24 optional and 16 union parameters over
/// all of them: tools past those budgets are sent without `strict` and reported.
/// A strict schema written on the pass-through path brings its figures (`pass`, by tool).
#[inline(never)]
fn enforce_claude_strict_limits(compiled: &mut [Option<Compiled>], pass: &[Option<Passed>], report: &mut Report, rules: &anthropic::Rules) {
    let (mut count, mut optional, mut unions) = (0usize, 0usize, 0usize);
    for (i, slot) in compiled.iter_mut().enumerate() {
        let Some(c) = slot else { continue };
        if c.strict != Some(true) {
            continue;
        }
        let (o, u) = match pass.get(i) {
            Some(Some(Passed::Strict { costs, .. })) => *costs,
            _ => c.schema.as_ref().map(anthropic::strict_costs).unwrap_or((0, 0)),
        };
        let over = if count + 1 > anthropic::MAX_STRICT_TOOLS {
            Some(format!("more than {} strict tools", anthropic::MAX_STRICT_TOOLS))
        } else if optional + o > anthropic::MAX_STRICT_OPTIONAL {
            Some(format!("more than {} optional parameters over the strict tools", anthropic::MAX_STRICT_OPTIONAL))
        } else if unions + u > anthropic::MAX_STRICT_UNIONS {
            Some(format!("more than {} union-typed parameters over the strict tools", anthropic::MAX_STRICT_UNIONS))
        } else {
            None
        };
        match over {
            None => {
                count += 1;
                optional += o;
                unions += u;
            }
            Some(reason) => {
                // The schema the tool would have had without strict (a strict schema is also a
                // valid plain one, should there be none).
                let relaxed = c.relaxed.take();
                c.strict = None;
                if let Some(tr) = report.tools.get_mut(i) {
                    // The report is of the schema sent: what the strict attempt changed (its
                    // changes and problems, the last of the tool's) did not happen, and what the
                    // plain conversion reports is added.
                    if let Some(r) = &relaxed {
                        tr.changes.truncate(tr.changes.len().saturating_sub(r.strict_changes));
                        tr.problems.truncate(tr.problems.len().saturating_sub(r.strict_problems));
                        if crate::schema::walk::contains_ref(&r.schema, 0) {
                            let mut cx = Cx::new(Limits::default());
                            crate::schema::refs::report_unresolvable(&r.schema, &mut cx);
                            tr.problems.append(&mut cx.problems);
                        }
                    }
                    tr.strict = Some(false);
                    tr.problems.push(Diagnostic {
                        path: String::new(),
                        rule: rules.limit,
                        message: format!("sent without strict: {reason} ({} limits)", rules.who),
                    });
                }
                if let Some(r) = relaxed {
                    c.schema = Some(r.schema);
                }
            }
        }
    }
}

fn emit(provider: Provider, opts: &SchemaOptions, name: &str, description: &str, c: Compiled) -> Value {
    let mut f = Map::new();
    let described = |f: &mut Map<String, Value>| {
        if !description.is_empty() {
            f.put("description", string(description));
        }
    };
    let schema_present = c.schema.is_some();
    let schema = c.schema.unwrap_or_else(|| object([("type", string("object")), ("properties", Value::Object(Map::new()))]));
    match provider {
        Provider::OpenAi | Provider::Ollama => {
            f.put("name", string(name));
            described(&mut f);
            f.put("parameters", schema);
            // Ollama has no strict mode (`strict` is not asked of it).
            if opts.strict && provider == Provider::OpenAi {
                f.put("strict", Value::Bool(c.strict == Some(true)));
            }
            object([("type", string("function")), ("function", Value::Object(f))])
        }
        Provider::OpenAiResponses => {
            f.put("type", string("function"));
            f.put("name", string(name));
            described(&mut f);
            f.put("parameters", schema);
            f.put("strict", Value::Bool(c.strict == Some(true)));
            Value::Object(f)
        }
        Provider::Anthropic => {
            f.put("name", string(name));
            described(&mut f);
            f.put("input_schema", schema);
            if c.strict == Some(true) {
                f.put("strict", Value::Bool(true));
            }
            Value::Object(f)
        }
        Provider::Gemini | Provider::Vertex => {
            f.put("name", string(name));
            described(&mut f);
            let key = match opts.gemini_mode {
                GeminiMode::Parameters => "parameters",
                GeminiMode::JsonSchema => "parametersJsonSchema",
            };
            // In `parameters` mode a tool without arguments has no schema at all.
            if opts.gemini_mode == GeminiMode::JsonSchema {
                f.insert(key.into(), schema);
            } else if schema_present {
                let mut schema = schema;
                gemini::to_wire(&mut schema);
                f.insert(key.into(), schema);
            }
            Value::Object(f)
        }
        Provider::Bedrock => {
            f.put("name", string(name));
            described(&mut f);
            f.put("inputSchema", object([("json", schema)]));
            if c.strict == Some(true) {
                f.put("strict", Value::Bool(true));
            }
            object([("toolSpec", Value::Object(f))])
        }
    }
}

/// [`emit`]'s JSON, written straight as text: the same keys in the same order. The schema is
/// the pass-through tree when there is one (the compiled schema is then only a placeholder).
/// `tests/corpus.rs` and the tests below check that this writes what [`emit`] builds.
/// `leave_out`: write the schema as `null` (see [`convert_json_leaving_schemas`]).
#[allow(clippy::too_many_arguments)]
fn write_tool(out: &mut Vec<u8>, provider: Provider, opts: &SchemaOptions, name: &str, description: &str, c: Compiled, pass: Option<&Passed>, leave_out: bool) {
    let tool = ToolText { opts, name, description, pass, leave_out, strict: c.strict == Some(true) };
    // Each provider's wrapper a function of its own: a conversion compiles only its provider's
    // (a function is compiled on its first call, see bench/README.md, "Cold start").
    match provider {
        Provider::OpenAi | Provider::Ollama => tool.write_openai(out, provider, c.schema),
        Provider::OpenAiResponses => tool.write_responses(out, c.schema),
        Provider::Anthropic => tool.write_anthropic(out, c.schema),
        Provider::Gemini | Provider::Vertex => tool.write_gemini(out, c.schema),
        Provider::Bedrock => tool.write_bedrock(out, c.schema),
    }
}

/// What [`write_tool`] writes of a tool besides its compiled schema.
struct ToolText<'t> {
    opts: &'t SchemaOptions,
    name: &'t str,
    description: &'t str,
    pass: Option<&'t Passed<'t>>,
    leave_out: bool,
    /// Whether the tool is sent in strict mode.
    strict: bool,
}

impl ToolText<'_> {
    fn schema(&self, out: &mut Vec<u8>, schema: Option<Value>) {
        match (self.pass, schema) {
            _ if self.leave_out => out.extend_from_slice(b"null"),
            (Some(p @ Passed::AsIs(..)), _) => p.write_as_is(out),
            (Some(Passed::Written(text)), _) => out.extend_from_slice(text),
            (Some(p @ Passed::Strict { .. }), _) => p.write_strict(self.strict, self.opts, out),
            // Only Gemini `parameters` is lowered on the pass-through path (written below).
            // (A declared one is in the output already, and not written again.)
            (Some(Passed::Lowered(_) | Passed::Declared), _) => {}
            // A schema may hold shared `$ref` expansions (see `schema::refs::Shared`).
            (None, Some(v)) => crate::schema::refs::write_schema(out, &v),
            (None, None) => out.extend_from_slice(br#"{"type":"object","properties":{}}"#),
        }
    }

    fn name_and_description(&self, out: &mut Vec<u8>) {
        write_name_and_description(out, self.name, self.description);
    }

    #[inline(never)]
    fn write_openai(&self, out: &mut Vec<u8>, provider: Provider, schema: Option<Value>) {
        out.extend_from_slice(br#"{"type":"function","function":{"#);
        self.name_and_description(out);
        out.extend_from_slice(br#","parameters":"#);
        self.schema(out, schema);
        if self.opts.strict && provider == Provider::OpenAi {
            out.extend_from_slice(br#","strict":"#);
            out.extend_from_slice(if self.strict { b"true" } else { b"false" });
        }
        out.extend_from_slice(b"}}");
    }

    #[inline(never)]
    fn write_responses(&self, out: &mut Vec<u8>, schema: Option<Value>) {
        out.extend_from_slice(br#"{"type":"function","#);
        self.name_and_description(out);
        out.extend_from_slice(br#","parameters":"#);
        self.schema(out, schema);
        out.extend_from_slice(br#","strict":"#);
        out.extend_from_slice(if self.strict { b"true" } else { b"false" });
        out.push(b'}');
    }

    #[inline(never)]
    fn write_anthropic(&self, out: &mut Vec<u8>, schema: Option<Value>) {
        out.push(b'{');
        self.name_and_description(out);
        out.extend_from_slice(br#","input_schema":"#);
        self.schema(out, schema);
        if self.strict {
            out.extend_from_slice(br#","strict":true"#);
        }
        out.push(b'}');
    }

    #[inline(never)]
    fn write_gemini(&self, out: &mut Vec<u8>, schema: Option<Value>) {
        out.push(b'{');
        self.name_and_description(out);
        if self.opts.gemini_mode == GeminiMode::JsonSchema {
            out.extend_from_slice(br#","parametersJsonSchema":"#);
            self.schema(out, schema);
        } else if let Some(Passed::Lowered(lowered)) = self.pass {
            // Lowered on the pass-through path (see `fast::gemini`).
            if let Some(text) = lowered {
                out.extend_from_slice(br#","parameters":"#);
                out.extend_from_slice(text);
            }
        } else if let Some(lowered) = schema {
            // In `parameters` mode a tool without arguments has no schema at all.
            out.extend_from_slice(br#","parameters":"#);
            gemini::write_wire(out, &lowered);
        }
        out.push(b'}');
    }

    #[inline(never)]
    fn write_bedrock(&self, out: &mut Vec<u8>, schema: Option<Value>) {
        out.extend_from_slice(br#"{"toolSpec":{"#);
        self.name_and_description(out);
        out.extend_from_slice(br#","inputSchema":{"json":"#);
        self.schema(out, schema);
        out.push(b'}');
        if self.strict {
            out.extend_from_slice(br#","strict":true"#);
        }
        out.extend_from_slice(b"}}");
    }
}

/// A tool's `"name"` and, unless empty, `"description"` entries, as every provider's wrapper
/// has them (also the pass-through path's Gemini declarations, see [`fast::Declarations`]).
pub(crate) fn write_name_and_description(out: &mut Vec<u8>, name: &str, description: &str) {
    use crate::text::write_str;
    out.extend_from_slice(br#""name":"#);
    write_str(out, name);
    if !description.is_empty() {
        out.extend_from_slice(br#","description":"#);
        write_str(out, description);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A title or description that is not text is not sent, and the report says so; a tool
    /// that cannot be read is a set problem at its index.
    /// A `$ref` that leads nowhere (a missing definition, another document) is reported for the
    /// providers that are sent references as they are, on the borrowed-tree path as on the
    /// general one; one that resolves is not.
    #[test]
    fn unresolvable_refs_sent_as_they_are_are_reported() {
        let schema = serde_json::json!({"type":"object","properties":{"a":{"$ref":"#/$defs/Missing"},"b":{"$ref":"https://example.com/schemas/thing.json"},
            "c":{"$ref":"#/$defs/C"}},"$defs":{"C":{"type":"string"}}});
        let tools = serde_json::json!([{"name":"t","inputSchema":schema}]);
        for provider in [Provider::OpenAi, Provider::OpenAiResponses, Provider::Anthropic, Provider::Bedrock] {
            for strict in [false, true] {
                let mut opts = ConvertOptions::default();
                opts.schema.strict = strict;
                let general = convert(tools.clone(), provider, &opts).unwrap();
                let detailed = convert_json_detailed(&tools.to_string(), provider, &opts).unwrap();
                assert_eq!(detailed.tools, general.tools.to_string(), "{provider:?} strict={strict}");
                for report in [&general.report, &detailed.report] {
                    let mut at: Vec<&str> = report.tools[0].problems.iter().filter(|d| d.rule == "refs/unresolvable").map(|d| d.path.as_str()).collect();
                    at.sort_unstable();
                    assert_eq!(at, ["/properties/a", "/properties/b"], "{provider:?} strict={strict}: {:?}", report.tools[0].problems);
                }
            }
        }
    }

    /// Vertex AI takes the Gemini API's names, `:` included: a tool named with one keeps it for
    /// both, and is renamed (the name map resolving it back) for a provider whose names hold none.
    #[test]
    fn a_colon_in_a_name_is_kept_for_gemini_and_vertex() {
        let tools = serde_json::json!([{"name":"ns:tool","serverName":"srv","inputSchema":{"type":"object"}}]);
        let opts = ConvertOptions::default();
        for provider in [Provider::Gemini, Provider::Vertex, Provider::OpenAi] {
            let general = convert(tools.clone(), provider, &opts).unwrap();
            let detailed = convert_json_detailed(&tools.to_string(), provider, &opts).unwrap();
            let name = general.name_map.entries()[0].name.clone();
            assert_eq!(detailed.name_map.entries()[0].name, name, "{provider:?}");
            if provider == Provider::OpenAi {
                assert!(name.starts_with("mcp__srv__ns_tool_") && !name.contains(':'), "{name}");
            } else {
                assert_eq!(name, "mcp__srv__ns:tool", "{provider:?}");
            }
            let changes: Vec<(&str, &str)> = general.report.tools[0].changes.iter().map(|d| (d.rule, d.message.as_str())).collect();
            assert_eq!(changes, [("names/rename", format!("provider name \"{name}\" (the name map resolves it back)").as_str())], "{provider:?}");
            let entry = general.name_map.resolve(&name).unwrap();
            assert_eq!((entry.server.as_deref(), entry.tool.as_str()), (Some("srv"), "ns:tool"), "{provider:?}");
        }
    }

    /// OpenAI strict mode with a tool that falls back sends strict true and false in one request,
    /// which Cerebras refuses whole (s28c F5): a problem of the set says so, on every path.
    #[test]
    fn strict_values_mixed_in_one_request_are_a_problem_of_the_set() {
        let open_map = serde_json::json!({"name":"set_labels","inputSchema":{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}}}});
        let closed = serde_json::json!({"name":"get_weather","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}});
        let mixed = |tools: &Value, provider: Provider, strict: bool| -> Vec<Vec<Diagnostic>> {
            let mut opts = ConvertOptions::default();
            opts.schema.strict = strict;
            let general = convert(tools.clone(), provider, &opts).unwrap().report;
            let detailed = convert_json_detailed(&tools.to_string(), provider, &opts).unwrap().report;
            let checked = check_json(&tools.to_string(), provider, &opts).unwrap();
            [general, detailed, checked].map(|r| r.problems.into_iter().filter(|d| d.rule == "openai/strict-mixed").collect()).to_vec()
        };
        let both = serde_json::json!([closed, open_map]);
        for provider in [Provider::OpenAi, Provider::OpenAiResponses] {
            for found in mixed(&both, provider, true) {
                assert_eq!(found.len(), 1, "{provider:?}");
                assert_eq!(found[0].path, "");
                assert!(found[0].message.starts_with("the tools mix strict: true (1) and strict: false (1, "), "{}", found[0].message);
            }
            // All strict, none strict, or strict not asked: no mix.
            for (tools, strict) in [(serde_json::json!([closed, closed]), true), (serde_json::json!([open_map, open_map]), true), (both.clone(), false)] {
                assert!(mixed(&tools, provider, strict).iter().all(Vec::is_empty), "{provider:?} {tools} {strict}");
            }
        }
        // Claude's fallback sends no `strict`: nothing mixed.
        for provider in [Provider::Anthropic, Provider::Bedrock] {
            assert!(mixed(&both, provider, true).iter().all(Vec::is_empty), "{provider:?}");
        }
    }

    #[test]
    fn what_is_not_sent_of_a_tool_is_reported() {
        let json = r#"[{"name":"a","description":42,"title":{"t":1},"inputSchema":{"type":"object"}},{"name":""},{"name":"c","description":null,"inputSchema":{"type":"object"}}]"#;
        let report = check_json(json, Provider::OpenAi, &ConvertOptions::default()).unwrap();
        assert_eq!(report.tools.iter().map(|t| t.tool.as_str()).collect::<Vec<_>>(), ["a", "c"]);
        let rules: Vec<(&str, &str)> = report.tools[0].changes.iter().map(|d| (d.rule, d.message.as_str())).collect();
        assert_eq!(
            rules,
            [("tool/not-text", "the tool's title is not a string (object): not sent"), ("tool/not-text", "the tool's description is not a string (number): not sent")]
        );
        assert!(report.tools[1].changes.is_empty(), "a null description is no description");
        assert_eq!((report.problems[0].rule, report.problems[0].path.as_str()), ("tool/invalid", "/1"));
        // The tools themselves: the pass-through path leaves such a tool to the general one.
        let out: Value = serde_json::from_str(&convert_json(r#"[{"name":"a","description":42,"inputSchema":{"type":"object"}}]"#, Provider::OpenAi, &ConvertOptions::default()).unwrap()).unwrap();
        assert_eq!(out[0]["function"]["description"], Value::Null);
        assert_eq!(out[0]["function"]["name"], "a");
    }

    /// JSON text with lone surrogate escapes (`JSON.stringify` of JS strings cut inside a pair)
    /// converts with U+FFFD in their place, each reported at its input pointer; an error that is
    /// not one stays an error.
    #[test]
    fn lone_surrogate_escapes_are_replaced_and_reported() {
        // A key below the root: Claude's providers rename a top-level one they refuse (`a\u{fffd}`).
        let json = r#"{"tools":[{"name":"t","description":"cut \ud83d","inputSchema":{"type":"object","properties":{"o":{"type":"object","properties":{"a\udc00":{"type":"string"}}}}}}]}"#;
        let opts = ConvertOptions::default();
        for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Gemini, Provider::Bedrock] {
            let detailed = convert_json_detailed(json, provider, &opts).unwrap();
            assert!(detailed.tools.contains("cut \u{fffd}") && detailed.tools.contains("\"a\u{fffd}\""), "{provider:?}: {}", detailed.tools);
            let lone: Vec<(&str, &str)> = detailed.report.problems.iter().map(|d| (d.rule, d.path.as_str())).collect();
            assert_eq!(lone, [("input/lone-surrogate", "/tools/0/description"), ("input/lone-surrogate", "/tools/0/inputSchema/properties/o/properties/a\u{fffd}")]);
            assert_eq!(check_json(json, provider, &opts).unwrap().problems, detailed.report.problems);
            assert_eq!(convert_json(json, provider, &opts).unwrap(), detailed.tools);
        }
        let e = convert_json(r#"[{"name":"t","description":"\ud800"}"#, Provider::OpenAi, &opts).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidJson, "unclosed: still not JSON");
        assert!(e.message.contains("EOF"), "{}", e.message);
    }

    /// A number past a double's range stays `INVALID_JSON` for the text path (the object path has
    /// `Infinity`, which JSON makes `null`: clamping it here would make the two differ), its
    /// message naming the number as written, besides where it is.
    #[test]
    fn a_number_past_a_doubles_range_is_named() {
        let json = r#"[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"integer","description":"1e999","maximum":-1E+400}}}}]"#;
        for provider in [Provider::OpenAi, Provider::Gemini] {
            let e = convert_json(json, provider, &ConvertOptions::default()).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidJson);
            assert!(e.message.contains("number out of range at line 1 column") && e.message.ends_with("(-1E+400 is past a double's range)"), "{}", e.message);
        }
    }

    /// A lone surrogate in a tool's name (or server name) is no name: as U+FFFD two such names
    /// would be one, and the call would go to a tool the server does not have. The tool is
    /// refused (`INVALID_TOOL`; left out by `checkTools`); elsewhere the escape is U+FFFD, reported.
    #[test]
    fn a_lone_surrogate_in_a_tools_name_refuses_the_tool() {
        let opts = ConvertOptions::default();
        for (json, key) in [
            (r#"[{"name":"b"},{"name":"a\ud800","serverName":"s"}]"#, "name"),
            (r#"{"tools":[{"name":"b"},{"name":"a","serverName":"s\udc00"}]}"#, "serverName"),
        ] {
            let e = convert_json(json, Provider::OpenAi, &opts).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidTool, "{json}: {e}");
            assert!(e.message.starts_with(&format!("tool at index 1: its {key} holds a lone UTF-16 surrogate")), "{e}");
            let checked = check_json(json, Provider::OpenAi, &opts).unwrap();
            assert!(checked.problems.iter().any(|d| d.rule == "tool/invalid" && d.path == "/1"), "{:?}", checked.problems);
        }
        let two = r#"[{"name":"a\ud800","serverName":"s"},{"name":"a\ud801","serverName":"s"}]"#;
        assert_eq!(convert_json(two, Provider::Anthropic, &opts).unwrap_err().code, ErrorCode::InvalidTool);
        // Elsewhere (a description), U+FFFD, reported.
        let fine = convert_json_detailed(r#"[{"name":"a","description":"cut \ud83d"}]"#, Provider::OpenAi, &opts).unwrap();
        assert!(fine.tools.contains("cut \u{fffd}"));
    }

    /// A tool listed twice: the first copy keeps its name and is no collision in the report (it
    /// once was, its name read out of the other copy's "would be named" message); the second is.
    #[test]
    fn the_copy_of_a_repeated_tool_that_keeps_its_name_is_no_collision() {
        let json = r#"[{"name":"a","serverName":"s"},{"name":"a","serverName":"s"},{"name":"b","serverName":"s"}]"#;
        let detailed = convert_json_detailed(json, Provider::OpenAi, &ConvertOptions::default()).unwrap();
        let rules: Vec<(&str, Vec<&str>)> = detailed.report.tools.iter().map(|t| (t.name.as_str(), t.changes.iter().map(|c| c.rule).collect())).collect();
        assert_eq!(rules[0], ("mcp__s__a", vec!["names/rename"]));
        assert_eq!(rules[1].1, ["names/collision"]);
        assert_eq!(rules[2], ("mcp__s__b", vec!["names/rename"]));
    }

    /// Strict mode closes every object (`additionalProperties: false`): one below the root that
    /// declares no properties (a "JSON payload") would then take nothing but `{}`, so the tool
    /// goes without strict, saying why, on both paths; the root declaring none (no arguments),
    /// or an object closed as written, stays strict.
    #[test]
    fn an_object_that_declares_no_properties_is_not_closed_by_strict_mode() {
        let payload = serde_json::json!({"type": "object", "description": "Optional JSON payload"});
        let cases = [
            (serde_json::json!({"type": "object", "properties": {"data": payload}}), false),
            (serde_json::json!({"type": "object", "properties": {"l": {"type": "array", "items": {"type": ["object", "null"]}}}}), false),
            (serde_json::json!({"type": "object", "properties": {"u": {"anyOf": [{"type": "string"}, {"type": "object"}]}}}), false),
            (serde_json::json!({"type": "object"}), true),
            (serde_json::json!({"type": "object", "properties": {}}), true),
            (serde_json::json!({"type": "object", "properties": {"c": {"type": "object", "additionalProperties": false}}}), true),
            (serde_json::json!({"type": "object", "properties": {"c": {"type": "object", "properties": {"k": {"type": "string"}}}}}), true),
        ];
        let mut opts = ConvertOptions::default();
        opts.schema.strict = true;
        for provider in [Provider::OpenAi, Provider::OpenAiResponses, Provider::Anthropic, Provider::Bedrock] {
            for (schema, strict) in &cases {
                let tools = serde_json::json!([{"name": "t", "inputSchema": schema}]);
                let general = convert(tools.clone(), provider, &opts).unwrap();
                assert_eq!(convert_json(&tools.to_string(), provider, &opts).unwrap(), general.tools.to_string(), "{provider:?} {schema}");
                assert_eq!(general.report.tools[0].strict == Some(true), *strict, "{provider:?} {schema}: {:?}", general.report.tools[0]);
                if !strict {
                    let why = general.report.tools[0].problems.iter().find(|d| d.rule.ends_with("strict-fallback")).expect("said why");
                    assert!(why.message.contains("declares no properties, any allowed, at /properties/"), "{}", why.message);
                }
            }
        }
    }

    /// A `serverName` that is not text is the tool's error on both paths: it decides where the
    /// tool's calls go, so it is never dropped for the option's server.
    #[test]
    fn a_server_name_that_is_not_text_is_an_error() {
        let opts = ConvertOptions { server: Some("fallback".into()), ..ConvertOptions::default() };
        for json in [r#"[{"name":"t","serverName":5,"inputSchema":{"type":"object"}}]"#, r#"[{"name":"t","serverName":{"id":5}}]"#] {
            let e = convert_json(json, Provider::OpenAi, &opts).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidTool, "{json}");
            assert!(e.message.contains("\"serverName\" must be a string"), "{}", e.message);
            assert_eq!(e.tool.as_deref(), Some("t"));
            assert_eq!(convert(serde_json::from_str(json).unwrap(), Provider::Gemini, &opts).unwrap_err().code, ErrorCode::InvalidTool);
        }
        let null = convert_json(r#"[{"name":"t","serverName":null}]"#, Provider::OpenAi, &opts).unwrap();
        assert!(null.contains("fallback__t"), "a null serverName is none: {null}");
    }

    /// Options read from JSON text through the tree are those read from its `Value`, and so
    /// are the errors, code and message.
    #[test]
    fn options_read_from_text_as_from_their_value() {
        let texts = [
            "null",
            "{}",
            r#"{"server":"gh","strict":true,"geminiMode":"jsonSchema","separator":"-","prefix":"x","naming":"server"}"#,
            r#"{"serverName":null,"strict":null,"geminiMode":null,"limits":null,"unknown":[1,{"a":2}]}"#,
            r#"{"limits":{"maxDepth":12,"maxNodes":1000,"maxRefUnroll":3,"maxTools":9,"maxStringBytes":100,"other":"x"}}"#,
            // serde_json keeps a repeated key's last value at its first place.
            r#"{"strict":"yes","server":"a","strict":false}"#,
            r#"{"server":1,"strict":"yes"}"#,
            r#"{"strict":1}"#,
            r#"{"separator":""}"#,
            r#"{"naming":"nope"}"#,
            r#"{"geminiMode":"other"}"#,
            r#"{"limits":{"maxDepth":0}}"#,
            r#"{"limits":{"maxNodes":1.5}}"#,
            r#"{"limits":{"maxTools":"9"}}"#,
            r#"{"limits":{"maxNodes":{"a":[1,"é"]}}}"#,
            r#"{"limits":[]}"#,
            r#"{"stict":true}"#,
            r#"{"limits":{"maxDeph":3}}"#,
            r#"{"futureOption":1,"limits":{"futureLimit":2}}"#,
            "[]",
            "\"text\"",
            "3",
        ];
        for text in texts {
            let from_text = ConvertOptions::from_json_text(text).expect(text);
            let from_value = ConvertOptions::from_value(&serde_json::from_str(text).unwrap());
            match (from_text, from_value) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
                (Err(a), Err(b)) => assert_eq!((a.code, a.message), (b.code, b.message), "{text}"),
                (a, b) => panic!("{text}: {a:?} against {b:?}"),
            }
        }
        let message = |text: &str| ConvertOptions::from_json_text(text).unwrap().unwrap_err().message;
        assert_eq!(message(r#"{"strict":1}"#), "options.strict must be a boolean, got number");
        assert_eq!(message(r#"{"server":[]}"#), "options.server must be a string, got array");
        assert_eq!(message("3"), "options must be an object, got number");
        // Every value taken is named, the "jsonSchema" spelling too.
        assert_eq!(
            message(r#"{"geminiMode":"other"}"#),
            "options.geminiMode must be \"parameters\", \"parametersJsonSchema\" or \"jsonSchema\" (another spelling of \"parametersJsonSchema\"), got \"other\""
        );
        assert_eq!(message(r#"{"limits":{"maxNodes":{"a":[1.5,"\u00e9"]}}}"#), "options.limits.maxNodes must be an integer from 1 to 2^30, got {\"a\":[1.5,\"\u{e9}\"]}");
        assert_eq!(message(r#"{"strict":"yes","strict":false,"server":2}"#), "options.server must be a string, got number");
        let read = ConvertOptions::from_json_text(r#"{"server":"gh","strict":true,"limits":{"maxTools":9}}"#).unwrap().unwrap();
        assert_eq!((read.server.as_deref(), read.schema.strict, read.schema.limits.max_tools), (Some("gh"), true, 9));
        // Text the tree reader does not take is left to serde_json.
        assert!(ConvertOptions::from_json_text("{").is_none());
    }

    /// A key that is not an option but within did-you-mean distance of one is refused naming
    /// it, in `limits` too; a key near none is ignored (forward compatibility); the keys a
    /// caller reads itself (`also`) are neither, and are names to suggest.
    #[test]
    fn a_misspelt_option_is_refused_and_an_unrelated_one_ignored() {
        let message = |v: Value, also: &[&str]| ConvertOptions::from_value_with(&v, also).map(|_| ()).map_err(|e| (e.code, e.message));
        let refused = |m: &str| Err((ErrorCode::InvalidOptions, m.to_owned()));
        assert_eq!(message(serde_json::json!({"stict": true}), &[]), refused("options has no key \"stict\": did you mean strict?"));
        assert_eq!(message(serde_json::json!({"namin": "bare"}), &[]), refused("options has no key \"namin\": did you mean naming?"));
        assert_eq!(message(serde_json::json!({"portable_names": true}), &[]), refused("options has no key \"portable_names\": did you mean portableNames?"));
        assert_eq!(message(serde_json::json!({"limits": {"maxDeph": 3}}), &[]), refused("options.limits has no key \"maxDeph\": did you mean maxDepth?"));
        assert_eq!(message(serde_json::json!({"futureOption": 1, "x": 2, "limits": {"maxWidth": 4}}), &[]), Ok(()));
        // `toolsSystemPrompt`'s own keys.
        let prompt = ["locale", "template", "instructions", "provider"];
        assert_eq!(message(serde_json::json!({"template": "{{tools}}", "locale": "en", "provider": "openai"}), &prompt), Ok(()));
        assert_eq!(message(serde_json::json!({"temlate": "{{tools}}"}), &prompt), refused("options has no key \"temlate\": did you mean template?"));
        // The text path reads as the value's.
        let text = ConvertOptions::from_json_text(r#"{"server":"a","stict":true}"#).unwrap().unwrap_err();
        assert_eq!(text.message, "options has no key \"stict\": did you mean strict?");
    }

    /// Without a report, `$ref` expansions are shared; the tools and the name map (with the
    /// argument plans made inside shared expansions) are those of the detailed conversion.
    #[test]
    fn named_conversion_gives_the_detailed_tools_and_name_map() {
        let tools = serde_json::json!([{"name": "pick", "inputSchema": {
            "type": "object",
            "$defs": {"Size": {"type": "object", "properties": {"n": {"type": "integer", "enum": [8, 16]}, "note": {"type": "string"}}, "required": ["n"]}},
            "properties": {"a": {"$ref": "#/$defs/Size"}, "b": {"$ref": "#/$defs/Size"}, "c": {"type": "array", "items": {"$ref": "#/$defs/Size"}}},
            "required": ["a"]
        }}]);
        let text = tools.to_string();
        for (provider, strict) in [(Provider::Gemini, false), (Provider::Vertex, false), (Provider::OpenAi, true), (Provider::Anthropic, true)] {
            let mut opts = ConvertOptions::default();
            opts.schema.strict = strict;
            let detailed = convert_json_detailed(&text, provider, &opts).unwrap();
            let named = convert_json_named(&text, provider, &opts).unwrap();
            assert_eq!(named.tools, detailed.tools, "{provider:?}");
            assert_eq!(named.name_map, detailed.name_map, "{provider:?}");
            assert!(named.report.tools.is_empty(), "{provider:?}: no per-tool report");
        }
        // The plans made inside the shared expansion are there: Gemini's enum strings map back.
        let named = convert_json_named(&text, Provider::Gemini, &ConvertOptions::default()).unwrap();
        let plan = named.name_map.resolve("pick").unwrap().args.clone().expect("an argument plan");
        let args = plan.apply(serde_json::json!({"a": {"n": "16"}, "b": {"n": "8"}, "c": [{"n": "8"}]}));
        assert_eq!(args, serde_json::json!({"a": {"n": 16}, "b": {"n": 8}, "c": [{"n": 8}]}));
    }

    /// `maxDepth` has a ceiling the stack can take: the options refuse more, and `Limits`
    /// set higher from Rust are held to it, with the depth error naming the ceiling.
    #[test]
    fn depth_has_a_ceiling() {
        let err = ConvertOptions::from_value(&serde_json::json!({"limits": {"maxDepth": 129}})).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidOptions);
        assert!(err.message.contains("maxDepth must be an integer from 1 to 128, got 129"), "{}", err.message);
        let ok = ConvertOptions::from_value(&serde_json::json!({"limits": {"maxDepth": 128, "maxNodes": 1073741824}})).unwrap();
        assert_eq!((ok.schema.limits.max_depth, ok.schema.limits.max_nodes), (128, 1 << 30));

        // 130 schema levels, built as a Value (JSON text that deep is refused by the reader).
        let mut schema = serde_json::json!({"type": "string"});
        for _ in 0..130 {
            schema = serde_json::json!({"type": "object", "properties": {"n": schema}});
        }
        let tools = serde_json::json!([{"name": "deep", "inputSchema": schema}]);
        let mut opts = ConvertOptions::default();
        opts.schema.limits = Limits { max_depth: 1 << 30, ..Limits::default() };
        assert_eq!(opts.schema.limits.depth_limit(), Limits::DEPTH_CEILING);
        // A thread with room for 128 levels of unoptimised test-build frames (the JS tests
        // check the stack the wasm build needs).
        let run = move || {
            for provider in [Provider::Gemini, Provider::OpenAi] {
                opts.schema.strict = provider == Provider::OpenAi;
                let err = convert(tools.clone(), provider, &opts).unwrap_err();
                assert_eq!(err.code, ErrorCode::LimitExceeded, "{provider:?}: {}", err.message);
                assert!(err.message.contains("limit of 128 levels"), "{provider:?}: {}", err.message);
            }
        };
        std::thread::Builder::new().stack_size(256 << 20).spawn(run).unwrap().join().unwrap();
    }

    /// A root `$ref` (zod-to-json-schema's named schemas) and a wrapped root with `$defs`
    /// keep their arguments for every provider, on both paths.
    #[test]
    fn root_references_keep_their_arguments() {
        let named = serde_json::json!({
            "$ref": "#/definitions/Args", "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"Args": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"$ref": "#/definitions/Unit"}}, "required": ["city"]},
                            "Unit": {"type": "string", "enum": ["c", "f"]}}
        });
        let wrapped = serde_json::json!({"type": "array", "items": {"$ref": "#/$defs/Unit"}, "$defs": {"Unit": {"type": "string", "enum": ["c", "f"]}}});
        for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Gemini, Provider::Vertex, Provider::Bedrock] {
            for (schema, strict) in [(&named, false), (&named, true), (&wrapped, false)] {
                let tools = serde_json::json!([{"name": "t", "inputSchema": schema}]);
                let mut opts = ConvertOptions::default();
                opts.schema.strict = strict && matches!(provider, Provider::OpenAi | Provider::Anthropic | Provider::Bedrock);
                let general = convert(tools.clone(), provider, &opts).unwrap();
                assert_eq!(convert_json(&tools.to_string(), provider, &opts).unwrap(), general.tools.to_string(), "{provider:?}");
                let text = general.tools.to_string();
                if schema == &named {
                    assert!(text.contains(r#""city""#) && text.contains(r#""required":["city""#), "{provider:?} strict={strict}: {text}");
                    assert!(general.report.tools[0].changes.iter().any(|c| c.rule == "schema/root-ref"), "{provider:?}");
                } else {
                    // The reference inside the wrapped root still resolves (Gemini inlines it).
                    assert!(text.contains(r#""input""#) && text.contains(r#""c""#), "{provider:?}: {text}");
                    assert!(general.report.tools[0].problems.iter().all(|p| p.rule != "refs/unresolvable"), "{provider:?}: {text}");
                }
            }
        }
    }

    /// Past Claude's set-level limits (Anthropic's, Bedrock's) a tool that could be strict is sent
    /// as it would be without strict mode: the plain conversion's schema, no `strict`, and the
    /// report says why. Tools with and without `$ref`s (whose strict schemas are built differently).
    #[test]
    fn claude_tools_past_the_strict_limits_are_sent_plain() {
        let tools: Vec<Value> = (0..25)
            .map(|i| {
                let schema = if i % 2 == 0 {
                    serde_json::json!({"type": "object", "properties": {"a": {"type": "string", "format": "uri"}, "n": {"type": "integer", "minimum": 1}}, "required": ["a", "n"]})
                } else {
                    serde_json::json!({"type": "object", "$defs": {"N": {"type": "integer", "minimum": 1}}, "properties": {"a": {"type": "string", "format": "uri"}, "n": {"$ref": "#/$defs/N"}}, "required": ["a", "n"]})
                };
                serde_json::json!({"name": format!("t{i}"), "inputSchema": schema})
            })
            .collect();
        let input = Value::Array(tools);
        let mut strict = ConvertOptions::default();
        strict.schema.strict = true;
        for (provider, limit) in [(Provider::Anthropic, "anthropic/strict-limit"), (Provider::Bedrock, "bedrock/strict-limit")] {
            let s = convert(input.clone(), provider, &strict).unwrap();
            let p = convert(input.clone(), provider, &ConvertOptions::default()).unwrap();
            // Anthropic's tool is the object itself; Bedrock's is in `toolSpec`, its schema in `inputSchema.json`.
            let spec = |t: &Value| if provider == Provider::Bedrock { t["toolSpec"].clone() } else { t.clone() };
            let schema = |t: &Value| if provider == Provider::Bedrock { t["toolSpec"]["inputSchema"]["json"].clone() } else { t["input_schema"].clone() };
            for i in 0..25 {
                let (st, pt) = (&s.tools[i], &p.tools[i]);
                if i < 20 {
                    assert_eq!(spec(st)["strict"], true, "{provider:?} tool {i}");
                    assert_ne!(schema(st), schema(pt), "{provider:?} tool {i}");
                    assert_eq!(schema(st)["additionalProperties"], false, "{provider:?} tool {i}");
                } else {
                    assert!(spec(st).get("strict").is_none(), "{provider:?} tool {i}");
                    assert_eq!(schema(st), schema(pt), "{provider:?} tool {i}");
                    assert!(s.report.tools[i].problems.iter().any(|d| d.rule == limit), "{provider:?} tool {i}");
                    // Its report is the plain conversion's (no strict change that never happened),
                    // and the limit.
                    let (sr, pr) = (&s.report.tools[i], &p.report.tools[i]);
                    assert_eq!(sr.changes, pr.changes, "{provider:?} tool {i}");
                    assert_eq!(&sr.problems[..sr.problems.len() - 1], &pr.problems[..], "{provider:?} tool {i}");
                    assert!(!sr.changes.iter().any(|d| d.rule.ends_with("strict-keyword")), "{provider:?} tool {i}");
                }
                assert_eq!(s.report.tools[i].strict, Some(i < 20), "{provider:?} tool {i}");
                assert_eq!(p.report.tools[i].strict, None, "{provider:?} tool {i}: not asked for");
            }
            assert!(s.report.problems.is_empty(), "{provider:?}: {:?}", s.report.problems);
            assert_eq!(convert_json(&input.to_string(), provider, &strict).unwrap(), s.tools.to_string(), "{provider:?}");
        }
    }

    /// A tool nested past the JSON reader's bound is refused alone, at its index, as a tool past
    /// `limits.maxDepth` is: checkTools reports the others (probe F8), a conversion throws
    /// naming the tool's index, not a line and column of the whole text.
    #[test]
    fn a_tool_nested_past_the_readers_bound_is_refused_alone() {
        let mut deep = String::from(r#"{"type":"string"}"#);
        for _ in 0..250 {
            deep = format!(r#"{{"type":"object","properties":{{"x":{deep}}}}}"#);
        }
        let json = format!(r#"[{{"name":"good","inputSchema":{{"type":"object","properties":{{"q":{{"type":"string","description":"a, [b] {{c}} \" ,"}}}}}}}},{{"name":"deep","inputSchema":{deep}}}]"#);
        let report = check_json(&json, Provider::OpenAi, &ConvertOptions::default()).unwrap();
        assert_eq!(report.tools.iter().map(|t| t.tool.as_str()).collect::<Vec<_>>(), ["good"]);
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        assert_eq!((report.problems[0].path.as_str(), report.problems[0].rule), ("/1", "tool/invalid"));
        assert!(report.problems[0].message.contains("limits.maxDepth"), "{}", report.problems[0].message);
        let e = convert_json(&json, Provider::OpenAi, &ConvertOptions::default()).unwrap_err();
        assert_eq!(e.code, ErrorCode::LimitExceeded);
        assert_eq!(e.path.as_deref(), Some("/1"), "{e:?}");
        // Text that is not a list of JSON values is refused as a whole, as before.
        let bad = format!("[{{\"name\":\"x\"}},{deep},]");
        assert_eq!(check_json(&bad, Provider::OpenAi, &ConvertOptions::default()).unwrap_err().code, ErrorCode::LimitExceeded);
        // Each tool in turn: a tool without a name before the deep one is the error (at /0).
        let first = format!(r#"[{{"inputSchema":{{"type":"object"}}}},{{"name":"deep","inputSchema":{deep}}}]"#);
        let e = convert_json(&first, Provider::OpenAi, &ConvertOptions::default()).unwrap_err();
        assert_eq!((e.code, e.path.as_deref()), (ErrorCode::InvalidTool, Some("/0")), "{e:?}");
        // A lone surrogate escape elsewhere in the text does not make the list one error: the deep
        // tool is refused alone, a name with one too, and the repair reported.
        let cut = format!(r#"[{{"name":"good","description":"a\ud83d","inputSchema":{{"type":"object"}}}},{{"name":"b\ud83d"}},{{"name":"deep","inputSchema":{deep}}}]"#);
        let report = check_json(&cut, Provider::OpenAi, &ConvertOptions::default()).unwrap();
        assert_eq!(report.tools.iter().map(|t| t.tool.as_str()).collect::<Vec<_>>(), ["good"]);
        let problems: Vec<_> = report.problems.iter().map(|d| (d.path.as_str(), d.rule)).collect();
        assert_eq!(problems, [("/0/description", "input/lone-surrogate"), ("/1/name", "input/lone-surrogate"), ("/1", "tool/invalid"), ("/2", "tool/invalid")]);
    }

    /// A key of the conversion's options that a function makes no use of is refused naming the
    /// keys it takes, not read, checked and ignored; `serverName` and `nameFormat`, which are no
    /// options, are refused naming the option meant (probe pQ 4).
    #[test]
    fn options_a_function_makes_no_use_of_are_refused() {
        let valid = ["naming", "separator", "prefix", "portableNames", "provider"];
        for key in ["server", "strict", "geminiMode", "limits"] {
            let e = refuse_unused_options(&serde_json::json!({ "prefix": "x", key: "gh" }), "prefixToolName", &valid).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidOptions);
            assert_eq!(e.message, format!("options.{key} is no option of prefixToolName() (its options are naming, separator, prefix, portableNames, provider)"));
        }
        let e = refuse_unused_options(&serde_json::json!({ "provider": "gemini" }), "parseToolName", &NAMING_KEYS).unwrap_err();
        assert_eq!(e.message, "options.provider is no option of parseToolName() (its options are naming, separator, prefix, portableNames)");
        // Null is no option given; a key no options object has follows the usual rule.
        assert!(refuse_unused_options(&serde_json::json!({ "server": null, "someday": 1, "prefix": "x" }), "prefixToolName", &valid).is_ok());
        for (key, meant) in [("serverName", "server"), ("nameFormat", "naming")] {
            let options = serde_json::json!({ key: "server" });
            let e = ConvertOptions::from_value(&options).unwrap_err();
            assert_eq!((e.code, e.message.as_str()), (ErrorCode::InvalidOptions, format!("options.{key} is no option: the option is options.{meant}").as_str()));
            assert_eq!(ConvertOptions::from_json_text(&options.to_string()).unwrap().unwrap_err(), e);
        }
    }

    /// What a model reads spells numbers as JavaScript does (`1.0` as `1`, `-0` as `0`): JSON text
    /// as written and the same tools as JS objects (whose numbers `JSON.stringify` spelled) give
    /// the same descriptions and Gemini enum strings (probe pQ 3).
    #[test]
    fn model_text_spells_numbers_as_javascript_whatever_the_input_spelling() {
        let schema = |n: [&str; 5]| format!(r#"[{{"name":"a","inputSchema":{{"type":"object","properties":{{"x":{{"type":"number","minimum":{},"maximum":{},"multipleOf":{},"default":{}}},"e":{{"type":"integer","enum":[{},2]}}}}}}}}]"#, n[0], n[1], n[2], n[3], n[4]);
        let (as_text, as_js) = (schema(["-0", "1.0", "0.50", "1e2", "1.0"]), schema(["0", "1", "0.5", "100", "1"]));
        fn words(v: &Value, out: &mut Vec<String>) {
            match v {
                Value::Object(o) => {
                    for (k, x) in o {
                        match (k.as_str(), x) {
                            ("description", Value::String(d)) => out.push(d.clone()),
                            ("enum", Value::Array(e)) => out.extend(e.iter().filter_map(|s| s.as_str().map(str::to_owned))),
                            _ => words(x, out),
                        }
                    }
                }
                Value::Array(a) => a.iter().for_each(|x| words(x, out)),
                _ => {}
            }
        }
        let mut strict = ConvertOptions::default();
        strict.schema.strict = true;
        for (provider, opts) in [(Provider::Gemini, ConvertOptions::default()), (Provider::Vertex, ConvertOptions::default()), (Provider::Anthropic, strict.clone()), (Provider::Bedrock, strict.clone()), (Provider::OpenAi, strict)] {
            let said = |json: &str| {
                let mut out = Vec::new();
                words(&serde_json::from_str(&convert_json(json, provider, &opts).unwrap()).unwrap(), &mut out);
                out
            };
            let (text, js) = (said(&as_text), said(&as_js));
            assert!(!js.is_empty(), "{provider:?}");
            assert_eq!(text, js, "{provider:?}");
            assert!(text.iter().all(|w| !w.contains(".0") && !w.contains("-0") && !w.contains("0.50")), "{provider:?}: {text:?}");
            // The object API reads the same words.
            let mut objects = Vec::new();
            words(&convert(serde_json::from_str(&as_text).unwrap(), provider, &opts).unwrap().tools, &mut objects);
            assert_eq!(objects, js, "{provider:?}");
        }
    }

    /// Claude strict keeps `minItems` 0 or 1 whatever the JSON spells it (`1.0`, `1e0`, `-0`), as
    /// the object `JSON.parse` makes of it is read, by the JSON API and the object API alike;
    /// another count is still removed (s26d F2).
    #[test]
    fn claude_strict_reads_min_items_spelled_as_a_double_as_the_integer() {
        let mut strict = ConvertOptions::default();
        strict.schema.strict = true;
        let tools = |n: &str| format!(r#"[{{"name":"a","inputSchema":{{"type":"object","properties":{{"xs":{{"type":"array","items":{{"type":"string"}},"minItems":{n}}}}},"required":["xs"]}}}}]"#);
        let min_items = |out: &Value| out.pointer("/0/input_schema/properties/xs/minItems").or(out.pointer("/0/toolSpec/inputSchema/json/properties/xs/minItems")).and_then(Value::as_f64);
        for provider in [Provider::Anthropic, Provider::Bedrock] {
            for (n, kept) in [("1", Some(1.0)), ("1.0", Some(1.0)), ("1e0", Some(1.0)), ("0.0", Some(0.0)), ("-0", Some(0.0)), ("0e0", Some(0.0)), ("2.0", None), ("0.5", None)] {
                let text: Value = serde_json::from_str(&convert_json(&tools(n), provider, &strict).unwrap()).unwrap();
                assert_eq!(min_items(&text), kept, "{provider:?} JSON API, minItems {n}: {text}");
                let objects = convert(serde_json::from_str(&tools(n)).unwrap(), provider, &strict).unwrap().tools;
                assert_eq!(min_items(&objects), kept, "{provider:?} object API, minItems {n}: {objects}");
            }
        }
    }

    /// A tool the caller could not write as JSON (JS: cyclic, BigInt, a `toJSON` that throws,
    /// too deep for `JSON.stringify`) stands as `null`: its `tool/invalid` problem says its own
    /// error at its index, and the other tools keep their report (probe pQ 1).
    #[test]
    fn a_tool_not_written_as_json_is_its_own_problem() {
        let json = r#"[{"name":"good","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}},null,{"name":"also"}]"#;
        let why = Error::new(ErrorCode::LimitExceeded, "tool at index 1 cannot be represented as JSON: Maximum call stack size exceeded: it nests too deep").with_path("/1").with_tool("bad");
        let report = check_json_unwritten(json, Provider::OpenAi, &ConvertOptions::default(), std::slice::from_ref(&why)).unwrap();
        assert_eq!(report.tools.iter().map(|t| t.tool.as_str()).collect::<Vec<_>>(), ["good", "also"]);
        let problems: Vec<_> = report.problems.iter().map(|d| (d.path.as_str(), d.rule, d.message.as_str())).collect();
        assert_eq!(problems, [("/1", "tool/invalid", "tool at index 1 cannot be represented as JSON: Maximum call stack size exceeded: it nests too deep (tool \"bad\", at /1)")]);
        // Nothing not written: the report is check_json's.
        assert_eq!(check_json_unwritten(json, Provider::OpenAi, &ConvertOptions::default(), &[]).unwrap(), check_json(json, Provider::OpenAi, &ConvertOptions::default()).unwrap());
    }

    /// Claude strict (Anthropic, Bedrock): a pattern with lookaround or a backreference is
    /// removed and described, `uniqueItems` too, `$schema` dropped; `not`/`if`/`then` make the
    /// tool non-strict (removing them would change what is valid); both APIs.
    #[test]
    fn claude_strict_patterns_and_conditionals() {
        let tool = |p: Value| {
            serde_json::json!([{"name": "t", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"a": p}, "required": ["a"]}}])
        };
        let mut strict = ConvertOptions::default();
        strict.schema.strict = true;
        for provider in [Provider::Anthropic, Provider::Bedrock] {
            let spec = |t: &Value| if provider == Provider::Bedrock { t["toolSpec"].clone() } else { t.clone() };
            let prop = |t: &Value| schema_in(provider, t)["properties"]["a"].clone();
            for (schema, kept, strict_kept) in [
                (serde_json::json!({"type": "string", "pattern": "^(?!tmp).*$"}), false, true),
                (serde_json::json!({"type": "string", "pattern": "^(a)\\1$"}), false, true),
                (serde_json::json!({"type": "string", "pattern": "^[a-z\\d]+$"}), true, true),
                (serde_json::json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true}), false, true),
                // Removed unsaid: it allows duplicates, as its absence does.
                (serde_json::json!({"type": "array", "items": {"type": "string"}, "uniqueItems": false}), false, true),
                (serde_json::json!({"type": "string", "not": {"const": "x"}}), true, false),
                (serde_json::json!({"type": "string", "if": {"minLength": 3}, "then": {"pattern": "^a"}}), true, false),
            ] {
                let input = tool(schema.clone());
                let out = convert(input.clone(), provider, &strict).unwrap();
                let t = &out.tools[0];
                assert_eq!(spec(t).get("strict").is_some(), strict_kept, "{provider:?} {schema}: {t}");
                if strict_kept {
                    assert!(schema_in(provider, t).get("$schema").is_none(), "strict drops `$schema`: {t}");
                    let key = if schema.get("uniqueItems").is_some() { "uniqueItems" } else { "pattern" };
                    assert_eq!(prop(t).get(key).is_some(), kept, "{provider:?} {schema}: {t}");
                    if schema["uniqueItems"] == false {
                        assert!(prop(t).get("description").is_none(), "{provider:?} {schema}: {t}");
                    }
                } else {
                    assert!(out.report.tools[0].problems.iter().any(|d| d.rule.ends_with("/strict-fallback")), "{provider:?} {schema}: {:?}", out.report.tools[0]);
                }
                // The report says whether the tool stayed strict, whether or not the tool says it.
                assert_eq!(out.report.tools[0].strict, Some(strict_kept), "{provider:?} {schema}");
                assert_eq!(convert_json(&input.to_string(), provider, &strict).unwrap(), out.tools.to_string(), "{provider:?} {schema}");
            }
        }
    }

    /// Under a `$schema` of draft 3 to 7, `minContains` is no keyword: a `contains` beside
    /// `minContains: 0` still requires a matching item, and is described as required (where it
    /// is), not removed as unrequired; without `$schema` (draft 2020-12) it requires none. Both
    /// APIs agree.
    #[test]
    fn min_contains_is_no_keyword_before_draft_2019() {
        for provider in [Provider::Gemini, Provider::Vertex, Provider::Ollama, Provider::OpenAi] {
            for draft7 in [true, false] {
                let mut schema = serde_json::json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}, "contains": {"const": "x"}, "minContains": 0}}});
                if draft7 {
                    schema["$schema"] = serde_json::json!("http://json-schema.org/draft-07/schema#");
                }
                let input = serde_json::json!([{"name": "t", "inputSchema": schema}]);
                let out = convert(input.clone(), provider, &ConvertOptions::default()).unwrap();
                let text = convert_json_detailed(&input.to_string(), provider, &ConvertOptions::default()).unwrap();
                assert_eq!(serde_json::from_str::<Value>(&text.tools).unwrap(), out.tools, "{provider:?} {draft7}");
                assert_eq!(text.report, out.report, "{provider:?} {draft7}");
                let a = &schema_in(provider, &out.tools[0])["properties"]["a"];
                let changes = &out.report.tools[0].changes;
                assert!(a.get("minContains").is_none() || !draft7, "{provider:?}: {a}");
                assert_eq!(changes.iter().any(|d| d.rule == "schema/draft7-contains-bounds" && d.path == "/properties/a"), draft7, "{provider:?}: {changes:?}");
                let required = a.get("contains").is_some() || a["description"].as_str().is_some_and(|d| d.contains("must contain an item matching"));
                assert_eq!(required, draft7 || provider == Provider::OpenAi, "{provider:?} {draft7}: {a}");
            }
        }
    }

    /// The input schema in a converted tool, where its provider puts it (Gemini: `parameters`,
    /// else `parametersJsonSchema`).
    fn schema_in(provider: Provider, t: &Value) -> &Value {
        match provider {
            Provider::OpenAi | Provider::Ollama => &t["function"]["parameters"],
            Provider::OpenAiResponses => &t["parameters"],
            Provider::Anthropic => &t["input_schema"],
            Provider::Bedrock => &t["toolSpec"]["inputSchema"]["json"],
            _ => {
                let d = &t["functionDeclarations"][0];
                if d.get("parameters").is_some() {
                    &d["parameters"]
                } else {
                    &d["parametersJsonSchema"]
                }
            }
        }
    }

    /// Gemini `parameters`: a keyword whose value has another type than its keyword takes (a
    /// number for a title, a fraction for a count) is removed as for every provider
    /// (`schema/bad-keyword-value`), neither sent nor described to the model; both APIs.
    #[test]
    fn gemini_fields_of_the_wrong_type_are_removed() {
        let input = serde_json::json!([{"name": "t", "inputSchema": {"type": "object", "properties": {
            "s": {"type": "string", "description": 7, "title": 5, "maxLength": 2.5, "minLength": 1, "pattern": 3},
            "l": {"type": "array", "items": {"type": "string"}, "minItems": -1, "maxItems": 4},
            "n": {"type": "number", "minimum": "0", "maximum": 9}}, "required": ["s"]}}]);
        let out = convert(input.clone(), Provider::Gemini, &ConvertOptions::default()).unwrap();
        let p = &out.tools[0]["functionDeclarations"][0]["parameters"]["properties"];
        for (prop, gone, kept) in [("s", &["title", "maxLength", "pattern"][..], &["minLength"][..]), ("l", &["minItems"], &["maxItems"]), ("n", &["minimum"], &["maximum"])] {
            for k in gone {
                assert!(p[prop].get(*k).is_none(), "{prop}.{k}: {}", p[prop]);
            }
            for k in kept {
                assert!(p[prop].get(*k).is_some(), "{prop}.{k}: {}", p[prop]);
            }
        }
        assert!(p["s"].get("description").is_none(), "{}", p["s"]);
        let bad = out.report.tools[0].changes.iter().filter(|d| d.rule == "schema/bad-keyword-value").map(|d| d.path.as_str()).collect::<Vec<_>>();
        assert_eq!(bad, ["/properties/s/description", "/properties/s/title", "/properties/s/maxLength", "/properties/s/pattern", "/properties/l/minItems", "/properties/n/minimum"]);
        assert_eq!(convert_json(&input.to_string(), Provider::Gemini, &ConvertOptions::default()).unwrap(), out.tools.to_string());
    }

    /// Every JSON Schema dialect a tool can be written in: each provider that takes JSON Schema,
    /// strict or not, and Gemini's `parametersJsonSchema`.
    fn json_schema_dialects() -> Vec<(Provider, ConvertOptions)> {
        let mut json_schema = ConvertOptions::default();
        json_schema.schema.gemini_mode = crate::providers::GeminiMode::JsonSchema;
        let mut strict = ConvertOptions::default();
        strict.schema.strict = true;
        vec![
            (Provider::Anthropic, ConvertOptions::default()),
            (Provider::Anthropic, strict.clone()),
            (Provider::Bedrock, ConvertOptions::default()),
            (Provider::OpenAi, ConvertOptions::default()),
            (Provider::OpenAi, strict),
            (Provider::OpenAiResponses, ConvertOptions::default()),
            (Provider::Gemini, json_schema),
        ]
    }

    /// Draft 4 tuples and boolean exclusive bounds are written as draft 2020-12 has them (which
    /// Anthropic checks against), for every JSON Schema dialect, through both APIs; OpenAI strict
    /// has no tuples and sends such a tool without strict.
    #[test]
    fn draft4_tuples_and_exclusive_bounds_are_rewritten() {
        let input = serde_json::json!([{"name": "t", "inputSchema": {"type": "object", "properties": {
            "pt": {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": false},
            "n": {"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 9, "exclusiveMaximum": false}}, "required": ["pt", "n"]}}]);
        for (provider, opts) in &json_schema_dialects() {
            let (provider, opts) = (*provider, opts);
            let out = convert(input.clone(), provider, opts).unwrap();
            let t = &out.tools[0];
            let schema = schema_in(provider, t);
            let label = format!("{provider:?} strict={}: {t}", opts.schema.strict);
            let pt = &schema["properties"]["pt"];
            assert_eq!(pt["prefixItems"], serde_json::json!([{"type": "number"}, {"type": "number"}]), "{label}");
            assert_eq!(pt["items"], false, "{label}");
            let n = &schema["properties"]["n"];
            if !(provider == Provider::Anthropic && opts.schema.strict) {
                assert_eq!((n["exclusiveMinimum"].clone(), n["maximum"].clone()), (serde_json::json!(0), serde_json::json!(9)), "{label}");
                assert!(n.get("minimum").is_none() && n.get("exclusiveMaximum").is_none(), "{label}");
            }
            if provider == Provider::OpenAi && opts.schema.strict {
                assert_eq!(t["function"]["strict"], false, "{label}");
            }
            assert_eq!(convert_json(&input.to_string(), provider, opts).unwrap(), out.tools.to_string(), "{label}");
        }
    }

    /// A tool whose name has letters or digits no provider name holds (`検索` reaches the model as
    /// `mcp__docs_____nmd3d66h`, nothing of its name left) is sent with its name at the start of
    /// its description, or as its description when it has none (a title stands in for one, a
    /// blank one is none), and its rename is a `names/sanitized` change naming the letters, for
    /// every provider and on every path (s31d F1). A name that keeps its letters (a prefix, `.`,
    /// an emoji, a combining mark written as `_`) is sent and reported as before.
    #[test]
    fn a_name_without_its_letters_is_said_in_the_description() {
        let input = serde_json::json!([
            {"name": "検索", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
            {"name": "削除", "title": "Delete a document", "inputSchema": {"type": "object"}},
            {"name": "поиск_docs", "description": "  Searches.", "inputSchema": {"type": "object"}},
            {"name": "جستجو", "description": " ", "inputSchema": {"type": "object"}},
            {"name": "get", "description": "Gets.", "inputSchema": {"type": "object"}},
            {"name": "a.b-c d", "inputSchema": {"type": "object"}},
            {"name": "find🔍", "inputSchema": {"type": "object"}},
            {"name": "cafe\u{301}", "description": "NFD", "inputSchema": {"type": "object"}},
        ]);
        let want = [
            Some("Tool name: 検索"),
            Some("Tool name: 削除\n\nDelete a document"),
            Some("Tool name: поиск_docs\n\nSearches."),
            Some("Tool name: جستجو"),
            Some("Gets."),
            None,
            None,
            Some("NFD"),
        ];
        let description = |provider: Provider, tools: &Value, i: usize| -> Option<String> {
            let d = match provider {
                Provider::OpenAi | Provider::Ollama => &tools[i]["function"]["description"],
                Provider::OpenAiResponses | Provider::Anthropic => &tools[i]["description"],
                Provider::Bedrock => &tools[i]["toolSpec"]["description"],
                Provider::Gemini | Provider::Vertex => &tools[0]["functionDeclarations"][i]["description"],
            };
            d.as_str().map(str::to_owned)
        };
        for provider in Provider::ALL {
            for strict in [false, true] {
                let opts = ConvertOptions { server: Some("docs".into()), schema: SchemaOptions { strict, ..SchemaOptions::default() }, ..ConvertOptions::default() };
                let out = convert(input.clone(), provider, &opts).unwrap();
                let label = format!("{provider:?} strict={strict}");
                for (i, want) in want.iter().enumerate() {
                    assert_eq!(description(provider, &out.tools, i).as_deref(), *want, "{label}: {i}");
                }
                assert_eq!(convert_json(&input.to_string(), provider, &opts).unwrap(), out.tools.to_string(), "{label}");
                let detailed = convert_json_detailed(&input.to_string(), provider, &opts).unwrap();
                assert_eq!(detailed.tools, out.tools.to_string(), "{label}");
                let rules: Vec<&str> = out.report.tools.iter().map(|t| t.changes.iter().find(|c| c.rule.starts_with("names/")).map_or("", |c| c.rule)).collect();
                assert_eq!(rules, ["names/sanitized", "names/sanitized", "names/sanitized", "names/sanitized", "names/rename", "names/rename", "names/rename", "names/rename"], "{label}");
                assert_eq!(detailed.report.tools.iter().map(|t| &t.changes).collect::<Vec<_>>(), out.report.tools.iter().map(|t| &t.changes).collect::<Vec<_>>(), "{label}");
            }
        }
        let report = convert(input, Provider::Anthropic, &ConvertOptions { server: Some("docs".into()), ..ConvertOptions::default() }).unwrap().report;
        let name = &report.tools[0].name;
        assert_eq!(
            report.tools[0].changes[0].message,
            format!(r#"provider name "{name}" (the name map resolves it back): "検索" has letters or digits no provider's names can hold (検, 索), each written as "_"; the description starts with the name ("Tool name: 検索")"#)
        );
        // Many letters are listed up to a count; a repeated one once.
        let long = serde_json::json!([{"name": "ааабвгдежзийк", "inputSchema": {"type": "object"}}]);
        let report = convert(long, Provider::OpenAi, &ConvertOptions::default()).unwrap().report;
        assert!(report.tools[0].changes[0].message.contains("(а, б, в, г, д, е, ж, з, and 3 more)"), "{}", report.tools[0].changes[0].message);
    }

    /// Letters lost by a name that a clash also re-salted (one tool name on two servers, under
    /// `bare`) are still a `names/sanitized` change; a clash alone is `names/collision`.
    #[test]
    fn a_clashing_name_without_its_letters_is_reported_as_sanitized() {
        let input = serde_json::json!([
            {"name": "検索", "serverName": "a", "inputSchema": {"type": "object"}},
            {"name": "検索", "serverName": "b", "inputSchema": {"type": "object"}},
            {"name": "get", "serverName": "a", "inputSchema": {"type": "object"}},
            {"name": "get", "serverName": "b", "inputSchema": {"type": "object"}},
        ]);
        let opts = ConvertOptions { naming: NamingOptions { format: Some(NameFormat::Bare), ..NamingOptions::default() }, ..ConvertOptions::default() };
        let out = convert(input, Provider::OpenAi, &opts).unwrap();
        let rules: Vec<&str> = out.report.tools.iter().map(|t| t.changes[0].rule).collect();
        assert_eq!(rules, ["names/sanitized", "names/sanitized", "names/collision", "names/collision"]);
        assert_eq!(out.tools[0]["function"]["description"], "Tool name: 検索");
        assert!(out.name_map.resolve(out.tools[1]["function"]["name"].as_str().unwrap()).is_ok());
    }

    /// Bedrock refuses an empty `description` (it must be 1 or more characters): one that is
    /// blank is left out, for both APIs.
    #[test]
    fn bedrock_leaves_out_a_blank_description() {
        let input = serde_json::json!([{"name": "my_tool", "description": "  ", "inputSchema": {"type": "object"}}]);
        let out = convert(input.clone(), Provider::Bedrock, &ConvertOptions::default()).unwrap();
        let spec = &out.tools[0]["toolSpec"];
        assert!(spec.get("description").is_none(), "{spec}");
        assert_eq!(spec["name"], "my_tool");
        assert_eq!(convert_json(&input.to_string(), Provider::Bedrock, &ConvertOptions::default()).unwrap(), out.tools.to_string());
    }

    /// Gemini: a required property whose schema is an empty object stays, and so does its
    /// name in `required`.
    #[test]
    fn gemini_keeps_a_required_empty_object_property() {
        let input = serde_json::json!([{"name": "t", "inputSchema": {"type": "object",
            "properties": {"o": {"type": "object", "properties": {}}, "p": {"type": "string"}}, "required": ["o", "p"]}}]);
        let out = convert(input.clone(), Provider::Gemini, &ConvertOptions::default()).unwrap();
        let params = &out.tools[0]["functionDeclarations"][0]["parameters"];
        assert_eq!(params["properties"]["o"]["type"], "OBJECT", "{params}");
        assert_eq!(params["required"], serde_json::json!(["o", "p"]), "{params}");
        assert_eq!(convert_json(&input.to_string(), Provider::Gemini, &ConvertOptions::default()).unwrap(), out.tools.to_string());
    }

    /// Keyword values that JSON Schema 2020-12 refuses (which Anthropic and OpenAI refuse the tool
    /// for) are removed and reported, and repeated `type` and `required` names kept once, for every
    /// JSON Schema dialect, through both APIs; valid values stay.
    #[test]
    fn keyword_values_of_the_wrong_kind_are_removed_and_reported() {
        let input = serde_json::json!([{"name": "t", "inputSchema": {"type": "object", "properties": {
            "s": {"type": ["string", "string"], "minLength": -1, "maxLength": 1.5, "format": 5, "title": 5, "pattern": "^a", "description": "kept"},
            "l": {"type": "array", "items": {"type": "string", "enum": "x"}, "minItems": "2", "maxItems": 2.0, "uniqueItems": "yes"},
            "n": {"type": "number", "multipleOf": 0, "minimum": "0", "maximum": 9, "examples": 3}}, "required": ["s", "s", "l"]}}]);
        for (provider, opts) in &json_schema_dialects() {
            let (provider, opts) = (*provider, opts);
            let out = convert(input.clone(), provider, opts).unwrap();
            let t = &out.tools[0];
            let schema = schema_in(provider, t);
            let label = format!("{provider:?} strict={}: {t}", opts.schema.strict);
            let text = schema.to_string();
            for bad in ["-1", "1.5", "\"format\":5", "\"title\":5", "\"enum\":\"x\"", "\"2\"", "\"yes\"", "\"multipleOf\":0", "\"0\"", "\"examples\":3", "[\"string\",\"string\"]"] {
                assert!(!text.contains(bad), "{bad} left in {label}");
            }
            if !opts.schema.strict {
                assert_eq!(schema["required"], serde_json::json!(["s", "l"]), "{label}");
                assert_eq!(schema["properties"]["s"]["pattern"], "^a", "{label}");
                assert_eq!(schema["properties"]["l"]["maxItems"], serde_json::json!(2.0), "{label}");
                assert_eq!(schema["properties"]["n"]["maximum"], 9, "{label}");
            }
            let rules: Vec<&str> = out.report.tools[0].changes.iter().map(|c| c.rule).collect();
            assert_eq!(rules.iter().filter(|r| **r == "schema/bad-keyword-value").count(), 10, "{label}: {rules:?}");
            assert_eq!(rules.iter().filter(|r| **r == "schema/duplicate-names").count(), 2, "{label}: {rules:?}");
            assert_eq!(convert_json(&input.to_string(), provider, opts).unwrap(), out.tools.to_string(), "{label}");
        }
    }

    /// Gemini's `parameters`: draft 3's `required: true` on a property below the root (of a
    /// nested object, of array items, of a nullable object) goes into its object's `required`
    /// (`schema/draft3-required`), as at the root and for every other dialect, through both
    /// APIs; `required: false` goes without a word.
    #[test]
    fn gemini_lifts_draft3_required_below_the_root() {
        let input = serde_json::json!([{"name": "t", "inputSchema": {"type": "object", "properties": {
            "c": {"type": "object", "properties": {"d": {"type": "string", "required": true}, "e": {"type": "string", "required": false}}},
            "list": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string", "required": true}, "n": {"type": "integer"}}}},
            "maybe": {"type": ["object", "null"], "properties": {"z": {"type": "string", "required": true}}, "required": ["z"]}}}}]);
        // The same with one at the root too (which the JSON API's pass-through path leaves to
        // the general path: the one without, it lowers but for those objects).
        let mut with_top = input.clone();
        with_top[0]["inputSchema"]["properties"]["top"] = serde_json::json!({"type": "string", "required": true});
        let mut json_schema = ConvertOptions::default();
        json_schema.schema.gemini_mode = crate::providers::GeminiMode::JsonSchema;
        let dialects = [(Provider::Gemini, ConvertOptions::default()), (Provider::Vertex, ConvertOptions::default()), (Provider::Gemini, json_schema), (Provider::OpenAi, ConvertOptions::default())];
        for ((provider, opts), input) in dialects.iter().flat_map(|d| [(d, &input), (d, &with_top)]) {
            let (provider, input) = (*provider, input.clone());
            let out = convert(input.clone(), provider, opts).unwrap();
            let schema = schema_in(provider, &out.tools[0]);
            let label = format!("{provider:?} {:?}: {schema}", opts.schema.gemini_mode);
            let top = schema["properties"].get("top").is_some();
            assert_eq!(schema.get("required"), top.then(|| serde_json::json!(["top"])).as_ref(), "{label}");
            assert_eq!(schema["properties"]["c"]["required"], serde_json::json!(["d"]), "{label}");
            assert_eq!(schema["properties"]["list"]["items"]["required"], serde_json::json!(["id"]), "{label}");
            assert!(!schema.to_string().contains("\"required\":true") && !schema.to_string().contains("\"required\":false"), "{label}");
            let changes = &out.report.tools[0].changes;
            for path in ["/properties/top", "/properties/c/properties/d", "/properties/list/items/properties/id", "/properties/maybe/properties/z"].into_iter().skip(usize::from(!top)) {
                let rules: Vec<&str> = changes.iter().filter(|d| d.path == path).map(|d| d.rule).collect();
                assert_eq!(rules, ["schema/draft3-required"], "{path}: {label}");
            }
            assert!(!changes.iter().any(|d| d.path == "/properties/c/properties/e"), "{changes:?}");
            assert_eq!(convert_json(&input.to_string(), provider, opts).unwrap(), out.tools.to_string(), "{label}");
        }
    }

    /// Draft 3's `required: true` on a property of an object whose own `required` is no list
    /// (`required: true` there too: draft 3 for its parent, as on array items): the property's
    /// flag joins a new `required` list of the object, for every dialect, through both APIs. It
    /// was lost, and the report said it was moved into the parent's `required`.
    #[test]
    fn draft3_required_is_lifted_whatever_the_object_s_own_required_was() {
        let input = serde_json::json!([{"name": "t", "inputSchema": {"type": "object", "properties": {
            "list": {"type": "array", "items": {"type": "object", "required": true, "properties": {"id": {"type": "string", "required": true}}}},
            "c": {"type": "object", "required": true, "properties": {"d": {"type": "string", "required": true}}},
            "s": {"type": "object", "required": "yes", "properties": {"e": {"type": "string", "required": true}}}}}}]);
        let mut json_schema = ConvertOptions::default();
        json_schema.schema.gemini_mode = crate::providers::GeminiMode::JsonSchema;
        let mut dialects = json_schema_dialects();
        dialects.extend([(Provider::Gemini, ConvertOptions::default()), (Provider::Vertex, ConvertOptions::default()), (Provider::Gemini, json_schema)]);
        for (provider, opts) in &dialects {
            let (provider, opts) = (*provider, opts);
            let out = convert(input.clone(), provider, opts).unwrap();
            let schema = schema_in(provider, &out.tools[0]);
            let label = format!("{provider:?} {:?} strict={}: {schema}", opts.schema.gemini_mode, opts.schema.strict);
            assert_eq!(schema["properties"]["list"]["items"]["required"], serde_json::json!(["id"]), "{label}");
            assert_eq!(schema["properties"]["c"]["required"], serde_json::json!(["d"]), "{label}");
            assert_eq!(schema["properties"]["s"]["required"], serde_json::json!(["e"]), "{label}");
            let required: Vec<&str> = schema["required"].as_array().map(|r| r.iter().filter_map(serde_json::Value::as_str).collect()).unwrap_or_default();
            assert!(required.contains(&"c"), "{label}");
            let changes = &out.report.tools[0].changes;
            for path in ["/properties/list/items/properties/id", "/properties/c/properties/d", "/properties/s/properties/e", "/properties/c"] {
                assert!(changes.iter().any(|d| d.path == path && d.rule == "schema/draft3-required"), "{path}: {label}: {changes:?}");
            }
            assert_eq!(convert_json(&input.to_string(), provider, opts).unwrap(), out.tools.to_string(), "{label}");
        }
    }

    /// A `properties` that is no object (which the meta-schema refuses on any node, and which
    /// Ollama fails the whole request on) is removed and reported on a node of another type
    /// than object too, for every provider, through both APIs; on an object node it is replaced
    /// by `{}` (Gemini's `parameters`: removed); a `properties` object on a string node stays
    /// where the dialect keeps it.
    #[test]
    fn properties_of_the_wrong_kind_go_on_every_node() {
        let input = serde_json::json!([{"name": "t", "inputSchema": {"type": "object", "properties": {
            "a": {"type": "string", "properties": ["x"]},
            "s": {"type": "string", "properties": "x"},
            "n": {"type": ["integer", "null"], "properties": 7},
            "l": {"type": "array", "items": {"type": "boolean", "properties": true}},
            "o": {"type": "object", "properties": ["x"]},
            "u": {"properties": 7},
            "kept": {"type": "string", "properties": {"k": {"type": "string"}}}}}}]);
        let mut parameters = ConvertOptions::default();
        parameters.schema.gemini_mode = crate::providers::GeminiMode::Parameters;
        let mut dialects = json_schema_dialects();
        dialects.extend([(Provider::Ollama, ConvertOptions::default()), (Provider::Gemini, parameters.clone()), (Provider::Vertex, parameters)]);
        for (provider, opts) in &dialects {
            let (provider, opts) = (*provider, opts);
            let out = convert(input.clone(), provider, opts).unwrap();
            let schema = schema_in(provider, &out.tools[0]);
            let label = format!("{provider:?} strict={}: {schema}", opts.schema.strict);
            let gemini = matches!(provider, Provider::Gemini | Provider::Vertex) && opts.schema.gemini_mode == crate::providers::GeminiMode::Parameters;
            for p in ["a", "s", "n", "o", "u"] {
                let left = schema["properties"][p].get("properties");
                assert!(left.is_none_or(|v| *v == serde_json::json!({})), "{p}: {label}");
            }
            assert!(schema["properties"]["l"]["items"].get("properties").is_none(), "{label}");
            let changes = &out.report.tools[0].changes;
            let at = |path: &str| changes.iter().filter(|d| d.path == path).map(|d| d.rule).collect::<Vec<_>>();
            // Gemini's `parameters` removes `properties` from a node of another type than
            // object, the kind of its value aside.
            let other_type = if gemini { "gemini/not-object" } else { "schema/bad-properties" };
            for path in ["/properties/a", "/properties/s", "/properties/n", "/properties/l/items"] {
                let (path, rules) = if gemini { (path.to_owned(), at(path)) } else { (format!("{path}/properties"), at(&format!("{path}/properties"))) };
                assert!(rules.contains(&other_type), "{path}: {rules:?} {label}");
            }
            for path in ["/properties/o/properties", "/properties/u/properties"] {
                assert!(at(path).contains(&"schema/bad-properties"), "{path}: {changes:?} {label}");
            }
            if !gemini && !opts.schema.strict {
                assert_eq!(schema["properties"]["kept"]["properties"], serde_json::json!({"k": {"type": "string"}}), "{label}");
            }
            assert_eq!(convert_json(&input.to_string(), provider, opts).unwrap(), out.tools.to_string(), "{label}");
        }
    }

    /// Keyword values the meta-schema refuses beyond those of a keyword's kind (`type: []`, an
    /// empty `anyOf`/`allOf`/`oneOf`, a `dependentRequired` entry that is no list of names or
    /// names one twice, `$id: 5`, draft 3's `required: true` where no object reads it, an empty
    /// tuple or one beside `prefixItems`, a `pattern` that is no regular expression, `nullable:
    /// "yes"`) are removed or repaired and reported in every place (a property, a union branch,
    /// `items`, a definition a property refers to), for every JSON Schema dialect, through both
    /// APIs. OpenAI strict sends none with `strict: true`.
    #[test]
    fn refused_keyword_values_are_removed_in_every_place() {
        let bad = serde_json::json!({
            "t": {"type": []},
            "any": {"anyOf": []},
            "all": {"allOf": []},
            "one": {"oneOf": []},
            "dr": {"type": "object", "properties": {"a": {"type": "string"}}, "dependentRequired": {"a": "b", "c": ["a", "a"]}},
            "id": {"$id": 5, "$anchor": 1, "type": "string"},
            "req": {"type": "string", "required": true},
            "empty": {"type": "array", "items": [], "additionalItems": {"type": "string"}},
            "both": {"type": "array", "items": [{"type": "string"}], "prefixItems": [{"type": "integer"}]},
            "re": {"type": "string", "pattern": "(a"},
            "nul": {"type": "string", "nullable": "yes"},
            "pp": {"type": "object", "patternProperties": {"(abc": {"type": "string"}}},
        });
        let mut props = serde_json::Map::new();
        for (k, s) in bad.as_object().unwrap() {
            props.insert(format!("p_{k}"), s.clone());
            props.insert(format!("u_{k}"), serde_json::json!({"anyOf": [s, {"type": "null"}]}));
            props.insert(format!("i_{k}"), serde_json::json!({"type": "array", "items": s}));
            props.insert(format!("r_{k}"), serde_json::json!({"$ref": format!("#/$defs/{k}")}));
        }
        let input = serde_json::json!([{"name": "t", "inputSchema": {"type": "object", "properties": props, "$defs": bad}}]);
        for (provider, opts) in &json_schema_dialects() {
            let (provider, opts) = (*provider, opts);
            let out = convert(input.clone(), provider, opts).unwrap();
            let t = &out.tools[0];
            let label = format!("{provider:?} strict={}", opts.schema.strict);
            let text = schema_in(provider, t).to_string();
            for left in ["\"type\":[]", "\"anyOf\":[]", "\"allOf\":[]", "\"oneOf\":[]", "\"prefixItems\":[]", "\"items\":[", "\"a\":\"b\"", "[\"a\",\"a\"]", "\"$id\":5", "\"$anchor\":1", "\"required\":true", "\"(a\"", "\"yes\"", "\"(abc\""] {
                assert!(!text.contains(left), "{left} left in {label}: {text}");
            }
            let changes = &out.report.tools[0].changes;
            for k in bad.as_object().unwrap().keys() {
                // Draft 3's flag on a property's schema is read by its object, as ever.
                let rules: &[&str] = if k == "req" { &["schema/bad-keyword-value", "schema/draft3-required"] } else { &["schema/bad-keyword-value"] };
                let defined = match text.contains("$defs") {
                    true => format!("/$defs/{k}"),
                    false => format!("/properties/r_{k}"),
                };
                for at in [format!("/properties/p_{k}"), format!("/properties/u_{k}/anyOf/0"), format!("/properties/i_{k}/items"), defined] {
                    assert!(changes.iter().any(|d| rules.contains(&d.rule) && (d.path == at || d.path.starts_with(&format!("{at}/")))), "{label}: nothing reported at {at}: {changes:?}");
                }
            }
            assert!(changes.iter().any(|d| d.rule == "schema/duplicate-names" && d.path == "/properties/p_dr/dependentRequired/c"), "{label}: {changes:?}");
            if provider == Provider::OpenAi && opts.schema.strict {
                assert_eq!(t["function"]["strict"], false, "{label}");
            }
            assert_eq!(convert_json(&input.to_string(), provider, opts).unwrap(), out.tools.to_string(), "{label}");
        }
        // OpenAI strict: an empty union in `items` leaves a node strict mode cannot say; a
        // pattern that is no regular expression goes, and the tool stays strict without it.
        let mut strict = ConvertOptions::default();
        strict.schema.strict = true;
        for (p, is_strict) in [(serde_json::json!({"type": "array", "items": {"anyOf": []}}), false), (serde_json::json!({"type": "string", "pattern": "("}), true)] {
            let input = serde_json::json!([{"name": "t", "inputSchema": {"type": "object", "properties": {"p": p}, "required": ["p"], "additionalProperties": false}}]);
            let out = convert(input.clone(), Provider::OpenAi, &strict).unwrap();
            let f = &out.tools[0]["function"];
            assert_eq!(f["strict"], is_strict, "{f}");
            assert!(!f["parameters"].to_string().contains("anyOf") && !f["parameters"].to_string().contains("pattern"), "{f}");
            assert!(out.report.tools[0].changes.iter().any(|d| d.rule == "schema/bad-keyword-value"), "{:?}", out.report.tools[0].changes);
            assert_eq!(convert_json(&input.to_string(), Provider::OpenAi, &strict).unwrap(), out.tools.to_string());
        }
    }

    /// A `patternProperties` key that is no regular expression (which the meta-schema reads as
    /// `pattern`'s value) is removed with its entry and reported, naming the key, as a bad
    /// `pattern` is; the other entries stay. Every dialect and Gemini's `parameters`, through both
    /// APIs.
    #[test]
    fn a_pattern_properties_key_that_is_no_regular_expression_is_removed_and_reported() {
        let m = serde_json::json!({"type": "object", "patternProperties": {"(abc": {"type": "string"}, "^x_[a-z]+$": {"type": "integer"}, "a)": {}}});
        let mut dialects = json_schema_dialects();
        dialects.push((Provider::Gemini, ConvertOptions::default()));
        // Alone (which a conversion may take the fast way), and beside a bad `pattern`.
        for with_pattern in [false, true] {
            let mut properties = serde_json::json!({"m": m});
            if with_pattern {
                properties["s"] = serde_json::json!({"type": "string", "pattern": "(abc"});
            }
            let input = serde_json::json!([{"name": "t", "inputSchema": {"type": "object", "properties": properties}}]);
            for (provider, opts) in &dialects {
                let (provider, opts) = (*provider, opts);
                let out = convert(input.clone(), provider, opts).unwrap();
                let label = format!("{provider:?} {:?} strict={} pattern={with_pattern}", opts.schema.gemini_mode, opts.schema.strict);
                let schema = schema_in(provider, &out.tools[0]);
                let text = schema.to_string();
                assert!(!text.contains("(abc") && !text.contains("a)"), "{label}: {text}");
                if let Some(pp) = schema["properties"]["m"].get("patternProperties") {
                    assert_eq!(pp, &serde_json::json!({"^x_[a-z]+$": {"type": "integer"}}), "{label}");
                }
                let bad: Vec<(&str, &str)> = out.report.tools[0].changes.iter().filter(|d| d.rule == "schema/bad-keyword-value").map(|d| (d.path.as_str(), d.message.as_str())).collect();
                let mut expected = vec![
                    ("/properties/m/patternProperties/(abc", "`patternProperties` key \"(abc\" was not a regular expression; its entry removed"),
                    ("/properties/m/patternProperties/a)", "`patternProperties` key \"a)\" was not a regular expression; its entry removed"),
                ];
                if with_pattern {
                    expected.push(("/properties/s/pattern", "`pattern` was \"(abc\", not a regular expression; removed"));
                }
                assert_eq!(bad, expected, "{label}");
                assert_eq!(convert_json(&input.to_string(), provider, opts).unwrap(), out.tools.to_string(), "{label}");
            }
        }
        // A map whose keys all read is sent as it came.
        let good = serde_json::json!([{"name": "t", "inputSchema": {"type": "object", "properties": {"m": {"type": "object", "patternProperties": {"^x_[a-z]+$": {"type": "integer"}}}}}}]);
        let out = convert(good.clone(), Provider::Anthropic, &ConvertOptions::default()).unwrap();
        assert_eq!(out.tools[0]["input_schema"]["properties"]["m"]["patternProperties"], good[0]["inputSchema"]["properties"]["m"]["patternProperties"]);
        assert!(!out.report.tools[0].changes.iter().any(|d| d.rule == "schema/bad-keyword-value"), "{:?}", out.report.tools[0].changes);
    }

    /// With `portableNames`, every provider gets the same names, each within every provider's rule
    /// (Bedrock's strictest among them), distinct, and mapped back to its tool; both APIs agree.
    #[test]
    fn portable_names_are_the_same_for_every_provider() {
        let tools = serde_json::json!(["get-user", "search.a", "search_a", "9lives", "_x", "ünïcode", "a".repeat(80), "ok_name"]);
        let input: Vec<serde_json::Value> = tools.as_array().unwrap().iter().map(|n| serde_json::json!({"name": n, "inputSchema": {"type": "object"}})).collect();
        let input = serde_json::Value::Array(input);
        let opts = ConvertOptions::from_value(&serde_json::json!({"server": "my-srv", "portableNames": true})).unwrap();
        let portable = |n: &str| n.len() <= 64 && n.starts_with(|c: char| c.is_ascii_alphabetic()) && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        let mut seen: Option<Vec<String>> = None;
        for provider in [Provider::OpenAi, Provider::OpenAiResponses, Provider::Anthropic, Provider::Gemini, Provider::Vertex, Provider::Bedrock] {
            let out = convert(input.clone(), provider, &opts).unwrap();
            let names: Vec<String> = out.name_map.entries().iter().map(|e| e.name.clone()).collect();
            for (n, tool) in names.iter().zip(tools.as_array().unwrap()) {
                assert!(portable(n), "{provider:?}: {n}");
                assert!(crate::naming::NameRule::Strict.accepts(n) && crate::naming::NameRule::Gemini.accepts(n), "{n}");
                assert_eq!(out.name_map.resolve(n).unwrap().tool, tool.as_str().unwrap());
            }
            assert_eq!(names.iter().collect::<std::collections::HashSet<_>>().len(), names.len(), "distinct: {names:?}");
            assert_eq!(convert_json(&input.to_string(), provider, &opts).unwrap(), out.tools.to_string(), "{provider:?}");
            match &seen {
                Some(first) => assert_eq!(first, &names, "{provider:?}"),
                None => seen = Some(names),
            }
        }
        // Without the option, Gemini keeps a `.` that the others replace.
        let gemini = convert(input.clone(), Provider::Gemini, &ConvertOptions::from_value(&serde_json::json!({"server": "s"})).unwrap()).unwrap();
        assert!(gemini.name_map.entries().iter().any(|e| e.name.contains('.')));
        assert_eq!(ConvertOptions::from_value(&serde_json::json!({"portableNames": "yes"})).unwrap_err().code, ErrorCode::InvalidOptions);
    }

    /// A `required` that repeats a name on a node that is not an object (or has no type) is kept
    /// once by both APIs alike.
    #[test]
    fn repeated_required_names_on_any_node_agree_in_both_apis() {
        for x in [
            serde_json::json!({"required": ["a", "a"]}),
            serde_json::json!({"type": "string", "required": ["a", "a"]}),
            serde_json::json!({"anyOf": [{"type": "string"}], "required": ["a", "a"]}),
            serde_json::json!({"type": "string", "required": ["a", "a", 1, 1]}),
            serde_json::json!({"type": "string", "required": [1, 1]}),
        ] {
            let input = serde_json::json!([{"name": "t", "inputSchema": {"type": "object", "properties": {"x": x}}}]);
            for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Bedrock] {
                let out = convert(input.clone(), provider, &ConvertOptions::default()).unwrap();
                let text = convert_json(&input.to_string(), provider, &ConvertOptions::default()).unwrap();
                assert_eq!(text, out.tools.to_string(), "{provider:?} {x}");
                assert!(!text.contains(r#""a","a""#), "{provider:?}: {text}");
            }
        }
    }

    /// OpenAI strict makes an optional `const` property required and nullable as an enum of its
    /// value and null (a `const` alone would force the value); both APIs.
    #[test]
    fn openai_strict_optional_const_is_nullable() {
        let input = serde_json::json!([{"name": "t", "inputSchema": {"type": "object",
            "properties": {"mode": {"const": "fast"}, "kind": {"type": "string", "const": "k"}, "q": {"type": "string"}}, "required": ["q"]}}]);
        let mut strict = ConvertOptions::default();
        strict.schema.strict = true;
        let out = convert(input.clone(), Provider::OpenAi, &strict).unwrap();
        let f = &out.tools[0]["function"];
        assert_eq!(f["strict"], true);
        assert_eq!(f["parameters"]["properties"]["mode"], serde_json::json!({"enum": ["fast", null]}));
        assert_eq!(f["parameters"]["properties"]["kind"], serde_json::json!({"type": ["string", "null"], "enum": ["k", null]}));
        assert_eq!(f["parameters"]["required"], serde_json::json!(["mode", "kind", "q"]));
        assert_eq!(convert_json(&input.to_string(), Provider::OpenAi, &strict).unwrap(), out.tools.to_string());
    }

    /// OpenAI strict: an enum of more than 250 strings may total 15,000 characters at most; past
    /// that the tool is sent without strict, said why (both APIs). 250 long values stay strict.
    #[test]
    fn openai_strict_large_string_enums_fall_back() {
        let tool = |n: usize| {
            let values: Vec<String> = (0..n).map(|i| format!("{i:0>61}")).collect();
            serde_json::json!([{"name": "t", "inputSchema": {"type": "object", "properties": {"e": {"type": "string", "enum": values}}, "required": ["e"]}}])
        };
        let mut strict = ConvertOptions::default();
        strict.schema.strict = true;
        // 300 strings of 20 CJK characters: 6,000 characters (18,000 bytes) stay strict.
        let cjk = {
            let values: Vec<String> = (0..300).map(|i| format!("{i:0>3}{}", "漢".repeat(17))).collect();
            serde_json::json!([{"name": "t", "inputSchema": {"type": "object", "properties": {"e": {"type": "string", "enum": values}}, "required": ["e"]}}])
        };
        for (input, n, kept) in [(tool(300), 300, false), (tool(250), 250, true), (cjk, 300, true)] {
            let out = convert(input.clone(), Provider::OpenAi, &strict).unwrap();
            assert_eq!(out.tools[0]["function"]["strict"], kept, "{n} values");
            if !kept {
                let p = &out.report.tools[0].problems;
                assert!(p.iter().any(|d| d.rule == "openai/strict-fallback" && d.message.contains("15,000")), "{p:?}");
            }
            assert_eq!(convert_json(&input.to_string(), Provider::OpenAi, &strict).unwrap(), out.tools.to_string());
        }
    }

    /// An optional enum within OpenAI strict's limits stays strict: its null, which strict mode
    /// adds for optionality, is a branch beside it, not a 1,001st value or a 251st past 15,000
    /// characters (both APIs). An enum past a limit by itself still falls back, saying so.
    #[test]
    fn openai_strict_optional_enums_at_the_limits_stay_strict() {
        let tool = |values: Vec<String>| serde_json::json!([{"name": "t", "inputSchema": {"type": "object", "properties": {"e": {"type": "string", "enum": values}}}}]);
        let mut strict = ConvertOptions::default();
        strict.schema.strict = true;
        let thousand: Vec<String> = (0..1000).map(|i| format!("v{i}")).collect();
        let long: Vec<String> = (0..250).map(|i| format!("{i:0>61}")).collect();
        for values in [thousand, long] {
            let input = tool(values.clone());
            let out = convert(input.clone(), Provider::OpenAi, &strict).unwrap();
            let r = &out.report.tools[0];
            assert_eq!(r.strict, Some(true), "{} values: {:?}", values.len(), r.problems);
            let e = &out.tools[0]["function"]["parameters"]["properties"]["e"];
            assert_eq!(*e, serde_json::json!({"anyOf": [{"type": "string", "enum": values}, {"type": "null"}]}), "{} values", values.len());
            assert_eq!(out.name_map.resolve("t").unwrap().args.as_ref().unwrap().apply(serde_json::json!({"e": null})), serde_json::json!({}));
            assert_eq!(convert_json(&input.to_string(), Provider::OpenAi, &strict).unwrap(), out.tools.to_string(), "{} values", values.len());
        }
        let input = tool((0..1001).map(|i| format!("v{i}")).collect());
        let out = convert(input.clone(), Provider::OpenAi, &strict).unwrap();
        let p = &out.report.tools[0].problems;
        assert!(p.iter().any(|d| d.rule == "openai/strict-fallback" && d.message.contains("(1001 enum values")), "{p:?}");
        assert_eq!(convert_json(&input.to_string(), Provider::OpenAi, &strict).unwrap(), out.tools.to_string());
    }

    /// A root `allOf` whose branch is a reference (inheritance) keeps the referred properties
    /// and their `required` for every provider, through both APIs.
    #[test]
    fn root_all_of_a_reference_keeps_its_properties() {
        let input = serde_json::json!([{"name": "t", "inputSchema": {"type": "object",
            "allOf": [{"$ref": "#/$defs/Base"}, {"properties": {"b": {"type": "string"}}}],
            "$defs": {"Base": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}}}}]);
        for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Gemini, Provider::Bedrock] {
            let out = convert(input.clone(), provider, &ConvertOptions::default()).unwrap();
            let t = &out.tools[0];
            let schema = schema_in(provider, t);
            assert!(schema["properties"]["a"].is_object() && schema["properties"]["b"].is_object(), "{provider:?}: {t}");
            assert_eq!(schema["required"], serde_json::json!(["a"]), "{provider:?}: {t}");
            assert_eq!(convert_json(&input.to_string(), provider, &ConvertOptions::default()).unwrap(), out.tools.to_string());
        }
    }

    /// The optional parameters Claude's limits count include those of definitions (compiled
    /// into the grammar like the rest): two tools of 13 each, one of them in `$defs`, are 26.
    #[test]
    fn claude_strict_limits_count_definitions() {
        let props: Map<String, Value> = (0..13).map(|j| (format!("p{j}"), serde_json::json!({"type": "string"}))).collect();
        let input = serde_json::json!([
            {"name": "a", "inputSchema": {"type": "object", "properties": props}},
            {"name": "b", "inputSchema": {"type": "object", "properties": {"k": {"type": "string"}}, "required": ["k"],
                                          "$defs": {"D": {"type": "object", "properties": props}}}},
        ]);
        let mut strict = ConvertOptions::default();
        strict.schema.strict = true;
        let s = convert(input.clone(), Provider::Anthropic, &strict).unwrap();
        assert_eq!(s.tools[0]["strict"], true);
        assert!(s.tools[1].get("strict").is_none(), "{}", s.tools[1]);
        assert!(s.report.tools[1].problems.iter().any(|d| d.rule == "anthropic/strict-limit" && d.message.contains("optional")), "{:?}", s.report.tools[1]);
        assert_eq!(convert_json(&input.to_string(), Provider::Anthropic, &strict).unwrap(), s.tools.to_string());
    }

    /// Strict `oneOf` is `anyOf` for Claude (Anthropic, Bedrock), reported; without strict it stays.
    #[test]
    fn claude_strict_rewrites_one_of() {
        let input = serde_json::json!([{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}, "required": ["x"]}}]);
        let mut strict = ConvertOptions::default();
        strict.schema.strict = true;
        for (provider, rule) in [(Provider::Anthropic, "anthropic/strict-oneof"), (Provider::Bedrock, "bedrock/strict-oneof")] {
            let s = convert(input.clone(), provider, &strict).unwrap();
            let text = s.tools.to_string();
            assert!(text.contains(r#""x":{"anyOf":[{"type":"string"},{"type":"integer"}]}"#) && !text.contains("oneOf"), "{provider:?}: {text}");
            assert_eq!(s.report.tools[0].strict, Some(true));
            assert!(s.report.tools[0].changes.iter().any(|d| d.rule == rule), "{provider:?}");
            assert_eq!(convert_json(&input.to_string(), provider, &strict).unwrap(), text, "{provider:?}");
            let p = convert(input.clone(), provider, &ConvertOptions::default()).unwrap();
            assert!(p.tools.to_string().contains("oneOf"), "{provider:?}");
        }
    }

    /// The JSON API writes each provider's wrapper itself (`write_tool`); the object API builds
    /// it (`emit`). Both must give the same JSON for every provider and mode, on the shapes the
    /// corpus may not hold: no tools, no schema, an empty description, a title instead, a
    /// schema that passes through and one that does not, strict tools and their fallbacks.
    #[test]
    fn written_tools_are_the_built_tools() {
        let tools = serde_json::json!([
            {"name": "bare"},
            {"name": "empty", "description": "", "inputSchema": {}},
            {"name": "titled", "title": "Titled \"tool\" é", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}},
            {"name": "refs", "description": "D", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "#/$defs/y"}, "n": {"type": ["integer", "null"], "enum": [1, 2, null]}}, "$defs": {"y": {"type": "integer", "minimum": 1}}}},
            {"name": "open", "description": "additionalProperties open", "inputSchema": {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "number"}}}, "required": ["m"]}},
            {"name": "no_args", "description": "no arguments", "inputSchema": {"type": "object", "properties": {}}},
        ]);
        let modes = [
            (Provider::OpenAi, false, GeminiMode::Parameters),
            (Provider::OpenAi, true, GeminiMode::Parameters),
            (Provider::OpenAiResponses, false, GeminiMode::Parameters),
            (Provider::OpenAiResponses, true, GeminiMode::Parameters),
            (Provider::Anthropic, false, GeminiMode::Parameters),
            (Provider::Anthropic, true, GeminiMode::Parameters),
            (Provider::Gemini, false, GeminiMode::Parameters),
            (Provider::Gemini, false, GeminiMode::JsonSchema),
            (Provider::Vertex, false, GeminiMode::Parameters),
            (Provider::Bedrock, false, GeminiMode::Parameters),
            (Provider::Bedrock, true, GeminiMode::Parameters),
        ];
        for input in [tools.clone(), serde_json::json!([])] {
            for (provider, strict, mode) in modes {
                let mut opts = ConvertOptions { server: Some("srv".into()), ..ConvertOptions::default() };
                opts.schema.strict = strict;
                opts.schema.gemini_mode = mode;
                let built = serde_json::to_string(&convert(input.clone(), provider, &opts).unwrap().tools).unwrap();
                let written = convert_json(&input.to_string(), provider, &opts).unwrap();
                assert_eq!(written, built, "{provider:?} strict={strict} {mode:?}");
                let detailed = convert_json_detailed(&serde_json::to_string_pretty(&input).unwrap(), provider, &opts).unwrap();
                assert_eq!(detailed.tools, built, "{provider:?} strict={strict} {mode:?} (pretty input)");
            }
        }
    }

    /// Claude (Anthropic, Bedrock; strict or not) is given legal top-level property keys, the
    /// same on every path (the borrowed tree hands such a tool to the general path), with a
    /// change for each and a plan that gives the server its own keys, through the name map, its
    /// JSON form and the calls read from a response. Other providers keep the keys.
    #[test]
    fn claude_gets_property_keys_it_takes_and_calls_map_back() {
        use serde_json::json;
        let tools = json!([
            {"name": "list", "inputSchema": {"type": "object", "properties": {
                "$top": {"type": "integer", "minimum": 1, "description": "Items per page."},
                "filter[id]": {"type": "string"},
                "dollar_top": {"type": "string"},
                "nested": {"type": "object", "properties": {"$meta": {"type": "string"}, "dollar_top": {"type": "string"}}}},
                "required": ["filter[id]"]}},
            {"name": "plain", "inputSchema": {"type": "object", "properties": {"If-Match": {"type": "string"}}}}
        ]);
        let text = tools.to_string();
        for (provider, rule) in [(Provider::Anthropic, "anthropic/property-renamed"), (Provider::Bedrock, "bedrock/property-renamed")] {
            for strict in [false, true] {
                let mut opts = ConvertOptions::default();
                opts.schema.strict = strict;
                let conv = convert(tools.clone(), provider, &opts).unwrap();
                let list = match provider {
                    Provider::Bedrock => &conv.tools[0]["toolSpec"]["inputSchema"]["json"],
                    _ => &conv.tools[0]["input_schema"],
                };
                let keys: Vec<&str> = list["properties"].as_object().unwrap().keys().map(String::as_str).collect();
                assert_eq!(keys, ["dollar_top_2", "filter_id_", "dollar_top", "nested"], "{provider:?} strict={strict}");
                assert_eq!(list["required"], json!(["filter_id_"]));
                assert_eq!(list["properties"]["nested"]["properties"].as_object().unwrap().keys().collect::<Vec<_>>(), ["$meta", "dollar_top"], "nested keys stay");
                let desc = list["properties"]["dollar_top_2"]["description"].as_str().unwrap();
                assert!(desc.starts_with("Items per page.") && desc.contains(r#"(sent to the server as "$top")"#), "{desc}");
                // Strict: the renamed optional property stays optional (Claude's strict mode
                // takes optional properties as they are), the object closed.
                assert_eq!(conv.report.tools[0].strict, strict.then_some(true));
                if strict {
                    assert_eq!(list["additionalProperties"], json!(false));
                    assert!(list["properties"]["dollar_top_2"].get("minimum").is_none());
                }
                let changes: Vec<(&str, &str)> = conv.report.tools[0].changes.iter().filter(|d| d.rule == rule).map(|d| (d.path.as_str(), d.message.as_str())).collect();
                assert_eq!(changes.len(), 2, "{:?}", conv.report.tools[0].changes);
                assert_eq!(changes[0].0, "/properties/$top");
                assert!(changes[0].1.contains(r#""$top""#) && changes[0].1.contains(r#""dollar_top_2""#), "{}", changes[0].1);
                assert_eq!(changes[1].0, "/properties/filter[id]");
                assert!(conv.report.tools[1].changes.iter().all(|d| d.rule != rule), "If-Match is a key Claude takes");
                // The plan: only the root's keys; the literal `dollar_top`, at the root and
                // below, is the server's own.
                let sent = json!({"dollar_top_2": 5, "filter_id_": "x", "dollar_top": "lit", "nested": {"dollar_top": "n", "$meta": "m"}});
                let expected = json!({"$top": 5, "filter[id]": "x", "dollar_top": "lit", "nested": {"dollar_top": "n", "$meta": "m"}});
                let plan = conv.name_map.resolve("list").unwrap().args.clone().expect("a plan");
                assert_eq!(plan.apply(sent.clone()), expected);
                assert_eq!(plan.to_value()["renamed"], json!({"dollar_top_2": "$top", "filter_id_": "filter[id]"}));
                assert!(conv.name_map.resolve("plain").unwrap().args.is_none());
                // The name map's JSON form keeps it.
                let back = NameMap::from_json_value(conv.name_map.to_json_value()).unwrap();
                assert_eq!(back.resolve("list").unwrap().args.as_ref().unwrap().apply(sent.clone()), expected);
                // Both paths, and the name maps of the text APIs.
                let general = serde_json::to_string(&conv.tools).unwrap();
                assert_eq!(convert_json(&text, provider, &opts).unwrap(), general);
                for named in [convert_json_named(&text, provider, &opts).unwrap(), convert_json_detailed(&text, provider, &opts).unwrap(), convert_json_leaving_schemas(&text, provider, &opts, true).unwrap()] {
                    assert!(named.name_map == conv.name_map, "{provider:?} strict={strict}");
                }
                assert_eq!(convert_json_detailed(&text, provider, &opts).unwrap().report, conv.report);
                let leaving = convert_json_leaving_schemas(&text, provider, &opts, false).unwrap();
                assert_eq!(leaving.left_out.iter().map(|l| l.tool).collect::<Vec<_>>(), if strict { vec![] } else { vec![1] }, "the renamed schema is written");
                assert_eq!(crate::fast::passed_through(&text, provider, &opts.schema), 1, "{provider:?} strict={strict}");
                // The calls of a response.
                if provider == Provider::Anthropic {
                    let response = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "tu_1", "name": "list", "input": sent}]});
                    let calls = crate::calls::parse_tool_calls(&response, crate::calls::CallFormat::Anthropic, Some(&conv.name_map)).unwrap();
                    assert_eq!(calls[0].arguments, expected);
                }
            }
        }
        // OpenAI and Gemini keep the keys; Gemini's `parameters` reports those outside its
        // documented rule (not renamed: no rejection is known), `parametersJsonSchema` nothing.
        for provider in [Provider::OpenAi, Provider::OpenAiResponses, Provider::Gemini, Provider::Vertex] {
            for mode in [GeminiMode::Parameters, GeminiMode::JsonSchema] {
                let mut opts = ConvertOptions::default();
                opts.schema.gemini_mode = mode;
                let conv = convert(tools.clone(), provider, &opts).unwrap();
                assert!(conv.name_map.resolve("list").unwrap().args.is_none(), "{provider:?}");
                let text_out = serde_json::to_string(&conv.tools).unwrap();
                assert!(text_out.contains(r#""$top""#) && text_out.contains(r#""filter[id]""#), "{provider:?}");
                let reported: Vec<(usize, &str)> = conv.report.tools.iter().enumerate().flat_map(|(i, t)| t.problems.iter().filter(|d| d.rule == "gemini/property-name").map(move |d| (i, d.path.as_str()))).collect();
                let gemini_parameters = matches!(provider, Provider::Gemini | Provider::Vertex) && mode == GeminiMode::Parameters;
                if gemini_parameters {
                    assert_eq!(reported, [(0, "/properties/$top"), (0, "/properties/filter[id]"), (0, "/properties/nested/properties/$meta"), (1, "/properties/If-Match")], "{provider:?}");
                } else {
                    assert!(reported.is_empty(), "{provider:?} {mode:?}");
                }
                assert!(conv.report.tools.iter().all(|t| t.changes.iter().all(|d| !d.rule.ends_with("/property-renamed"))));
            }
        }
    }
}
