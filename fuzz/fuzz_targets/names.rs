//! Building and resolving the name map on arbitrary (server, tool) pairs.
//!
//! For both name rules and several naming options: every name satisfies the rule, names are
//! distinct, `resolve(name)` gives back exactly the input pair, and the JSON form round-trips.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use std::collections::HashSet;
use toolwire::naming::{NameFormat, NameMap, NameRule, NamingOptions};

#[derive(Debug, Arbitrary)]
struct Input {
    pairs: Vec<(Option<String>, String)>,
    /// An extra option set: any non-empty separator and any prefix.
    separator: String,
    prefix: String,
}

fn check(pairs: &[(Option<&str>, &str)], opts: &NamingOptions, rule: NameRule) {
    let ctx = || format!("rule {rule:?}, format {:?}, separator {:?}, prefix {:?}", opts.format, opts.separator, opts.prefix);
    let (map, _diags) = NameMap::build(pairs, opts, rule);
    assert_eq!(map.len(), pairs.len(), "{}: one entry per pair", ctx());
    let mut seen = HashSet::new();
    for (entry, &(server, tool)) in map.entries().iter().zip(pairs) {
        let name = entry.name.as_str();
        assert!(rule.accepts(name), "{}: name {name:?} (for {server:?}, {tool:?}) breaks the rule", ctx());
        assert!(seen.insert(name.to_owned()), "{}: name {name:?} given twice (now for {server:?}, {tool:?})", ctx());
        assert_eq!((entry.server.as_deref(), entry.tool.as_str()), (server, tool), "{}: entry holds another pair", ctx());
        let back = map.resolve(name).unwrap_or_else(|e| panic!("{}: {name:?} does not resolve: {e}", ctx()));
        assert_eq!((back.server.as_deref(), back.tool.as_str()), (server, tool), "{}: {name:?} resolves to another pair", ctx());
    }
    let json = map.to_json_value();
    let again = NameMap::from_json_value(json.clone()).unwrap_or_else(|e| panic!("{}: serialised map does not read back: {e}\n{json}", ctx()));
    assert_eq!(again.entries(), map.entries(), "{}: JSON round trip changed the entries", ctx());
    for e in map.entries() {
        let back = again.resolve(&e.name).unwrap_or_else(|err| panic!("{}: {:?} lost in the JSON round trip: {err}", ctx(), e.name));
        assert_eq!(back, e, "{}: JSON round trip resolves {:?} differently", ctx(), e.name);
    }
}

fuzz_target!(|input: Input| {
    let pairs: Vec<(Option<&str>, &str)> = input.pairs.iter().take(64).map(|(s, t)| (s.as_deref(), t.as_str())).collect();
    let mut option_sets = Vec::new();
    for format in [None, Some(NameFormat::Mcp), Some(NameFormat::Server), Some(NameFormat::Bare)] {
        for sep in ["__", "-"] {
            option_sets.push(NamingOptions { format, separator: sep.into(), ..NamingOptions::default() });
        }
    }
    if !input.separator.is_empty() {
        // ConvertOptions accepts any non-empty separator and any prefix.
        option_sets.push(NamingOptions { format: Some(NameFormat::Mcp), separator: input.separator.clone(), prefix: input.prefix.clone(), portable: false });
        option_sets.push(NamingOptions { format: Some(NameFormat::Server), separator: input.separator, prefix: input.prefix, portable: false });
    }
    for opts in &option_sets {
        for rule in [NameRule::Strict, NameRule::Gemini, NameRule::Portable] {
            check(&pairs, opts, rule);
            adversary(&pairs, opts, rule);
        }
    }
});

/// Names are only as unique as the last resort of `NameMap::build` (a `_{index}` suffix on a name
/// still taken after the re-hashing rounds). When that suffix shows up, a tool named like the
/// suffixed name, put first, must not be able to take it over: the fuzzer cannot guess such a
/// name (it contains a hash), so this builds it from the output.
fn adversary(pairs: &[(Option<&str>, &str)], opts: &NamingOptions, rule: NameRule) {
    let (map, _) = NameMap::build(pairs, opts, rule);
    for (i, e) in map.entries().iter().enumerate().take(16) {
        let Some(base) = e.name.strip_suffix(&format!("_{i}")) else { continue };
        if !map.entries()[..i].iter().any(|a| a.name.starts_with(base)) {
            continue;
        }
        // Shifted by one position, entry i will be suffixed `_{i + 1}`.
        let squatter = format!("{base}_{}", i + 1);
        let mut with: Vec<(Option<&str>, &str)> = vec![(None, squatter.as_str())];
        with.extend_from_slice(pairs);
        check(&with, opts, rule);
    }
}
