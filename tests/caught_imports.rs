//! A lint for src/wasm: a JS exception caught from an import declared `catch` that returns a JS
//! value leaks a slot of the externref table for good (see src/wasm/caught.rs, which holds the
//! only such imports, declared so that they do not). This test fails on a call, outside
//! caught.rs, of the js_sys functions declared that way, and on a `catch` import in src/wasm
//! returning a JS value without `Option`.
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;

/// js_sys's `catch` imports that return a JS value, as src/wasm would call them.
const LEAKY_CALLS: &[&str] = &[
    "Reflect::get(",
    "Reflect::get_u32(",
    "Reflect::get_f64(",
    "Reflect::get_with_ref_key(",
    "Reflect::construct(",
    "Reflect::construct_with_new_target(",
    "Reflect::apply(",
    "Reflect::own_keys(",
    "Reflect::get_own_property_descriptor(",
    "Reflect::get_prototype_of(",
    "JSON::stringify",
    "JSON::parse",
    ".call0(",
    ".call1(",
    ".call2(",
    ".call3(",
    ".apply(",
];

/// What a `catch` import may return: `Option` of a JS value, or what takes no table slot.
fn returns_no_slot(ret: &str) -> bool {
    let inner = ["std::result::Result<", "Result<", "Caught<"].iter().find_map(|p| ret.strip_prefix(p)).unwrap_or(ret);
    ["Option<", "bool", "f64", "u32", "i32", "()"].iter().any(|ok| inner.starts_with(ok))
}

fn wasm_sources() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/wasm");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "rs")).collect();
    files.sort();
    files.into_iter().map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap())).collect()
}

#[test]
fn leaky_js_sys_calls_only_in_caught() {
    let mut found = Vec::new();
    for (name, text) in wasm_sources() {
        if name == "caught.rs" {
            continue;
        }
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for call in LEAKY_CALLS {
                if code.contains(call) {
                    found.push(format!("src/wasm/{name}:{}: {call} (use crate::wasm::caught)", i + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "calls of catch imports that leak a table slot per caught throw:\n{}", found.join("\n"));
}

#[test]
fn catch_imports_return_no_bare_js_value() {
    let mut found = Vec::new();
    let mut seen = 0;
    for (name, text) in wasm_sources() {
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let attr = line.trim_start();
            if !(attr.starts_with("#[wasm_bindgen(") && attr.contains("catch")) {
                continue;
            }
            seen += 1;
            // The signature: the next line that declares a function, up to its `;`.
            let Some(start) = lines[i + 1..].iter().position(|l| l.contains("fn ")) else { continue };
            let sig: String = lines[i + 1 + start..].iter().take_while(|l| !l.trim_end().ends_with(';')).chain(lines[i + 1 + start..].iter().find(|l| l.trim_end().ends_with(';'))).copied().collect();
            let ret = sig.rsplit_once("->").map_or("()", |(_, r)| r.trim().trim_end_matches(';').trim());
            if !returns_no_slot(ret) {
                found.push(format!("src/wasm/{name}:{}: returns {ret}", i + 1));
            }
        }
    }
    assert!(seen > 10, "the catch imports were not found ({seen})");
    assert!(found.is_empty(), "catch imports returning a JS value without Option (a slot leaked per caught throw):\n{}", found.join("\n"));
}
