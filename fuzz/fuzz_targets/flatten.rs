//! Flattening MCP content to text, and the UTF-16 cut.
//!
//! Input layout: `[mode, m0, m1, m2, rest...]`. `max_chars` comes from `m0..m2` (small most of the
//! time, any `usize` sometimes). Mode even: `rest` is JSON (a content array or a whole
//! `CallToolResult`, e.g. a recorded `tools/call` result). Mode odd: content blocks are built
//! from `rest`, with text drawn from an alphabet rich in multi-byte and surrogate-pair characters.
//!
//! The flattening never panics; `content::utf16_len` counts what `encode_utf16` counts; its UTF-16
//! length, the marker included, is at most `max_chars`; content alone is the uncut flattening or,
//! when cut, the longest prefix of it that fits with the marker (`\n[Truncated: N of M characters
//! shown]`, N the prefix's length and M the uncut one's; the short `\n[Truncated]` or none where
//! the cap is too small for it). A whole result keeps its structure's JSON whole when it fits, so
//! it is checked for its length alone.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use toolwire::content::{self, flatten_content, flatten_result, truncate_utf16, truncated_marker, FlattenOptions, SHORT_MARKER};
use toolwire::model::CallToolResult;

const PIECES: &[&str] = &[
    "a", "Z", " ", "\n", "\r\n", "\t", "é", "ß", "€", "中", "文", "😀", "👍🏽", "🇫🇷", "𝄞", "\u{10FFFF}", "\u{FFFD}",
    "\u{FEFF}", "\u{200D}", "\u{0301}", "\0", "\\", "\"", "[Truncated]", "\n[Truncated]", "\n[", "[Image: x]",
];

fn text(u: &mut Unstructured) -> arbitrary::Result<String> {
    let mut s = String::new();
    let n = u.int_in_range(0..=24)?;
    for _ in 0..n {
        if u.ratio(1, 4)? {
            s.push_str(&u.arbitrary::<String>()?);
        } else {
            let p = *u.choose(PIECES)?;
            let times = u.int_in_range(1..=8)?;
            s.push_str(&p.repeat(times));
        }
    }
    Ok(s)
}

fn opt_text(u: &mut Unstructured) -> arbitrary::Result<Value> {
    Ok(match u.int_in_range(0..=3)? {
        0 => Value::Null,
        1 => json!(u.arbitrary::<i32>()?),
        _ => json!(text(u)?),
    })
}

fn block(u: &mut Unstructured) -> arbitrary::Result<Value> {
    Ok(match u.int_in_range(0..=9)? {
        0..=2 => json!({"type": "text", "text": text(u)?}),
        3 => json!({"type": "image", "data": "AAAA", "mimeType": opt_text(u)?}),
        4 => json!({"type": "audio", "data": opt_text(u)?, "mimeType": text(u)?}),
        5 => json!({"type": "resource_link", "uri": text(u)?, "name": opt_text(u)?, "title": opt_text(u)?}),
        6 => json!({"type": "resource", "resource": {"uri": text(u)?, "mimeType": opt_text(u)?, "text": opt_text(u)?}}),
        7 => json!({"type": "resource", "resource": {"uri": text(u)?, "blob": "AAAA", "mimeType": opt_text(u)?}}),
        8 => json!({"type": text(u)?, "text": opt_text(u)?}),
        _ => match u.int_in_range(0..=3)? {
            0 => json!(text(u)?),
            1 => json!(null),
            2 => json!({"type": "text"}),
            _ => json!({"type": "resource", "resource": text(u)?}),
        },
    })
}

fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// `out` is `uncut` if it fits, else the longest prefix of `uncut` that fits with its marker.
fn check_cut(out: &str, uncut: &str, max: usize, what: &str) {
    assert_eq!(content::utf16_len(uncut), utf16_len(uncut), "{what}: content::utf16_len of {uncut:?}");
    let total = utf16_len(uncut);
    if total <= max {
        assert_eq!(out, uncut, "{what}: max_chars {max}: text that fits was changed");
        return;
    }
    assert!(utf16_len(out) <= max, "{what}: max_chars {max}: {} UTF-16 units", utf16_len(out));
    // The marker that ends it: the one whose count is the length of what it follows.
    let cut = (0..=out.len()).rev().filter(|&i| out.is_char_boundary(i)).find(|&i| {
        let (kept, marker) = out.split_at(i);
        // Alone (nothing kept), without its line break.
        let alone = |m: &str| if kept.is_empty() { m.trim_start_matches('\n').to_owned() } else { m.to_owned() };
        uncut.starts_with(kept) && [alone(&truncated_marker(utf16_len(kept), total)), alone(SHORT_MARKER), String::new()].iter().any(|m| m == marker)
    });
    let i = cut.unwrap_or_else(|| panic!("{what}: max_chars {max}: not a prefix and a marker: {out:?}"));
    let (kept, marker) = out.split_at(i);
    let units = utf16_len(kept);
    let next = uncut[kept.len()..].chars().next().expect("something was cut");
    // Longest: one more character would not fit with the marker (a count one digit longer aside).
    assert!(units + next.len_utf16() + marker.len() + 1 > max, "{what}: max_chars {max}: cut {next:?} that still fit after {units} units");
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let m = u32::from_le_bytes([data[1], data[2], data[3], 0]);
    let max_chars = match m >> 20 {
        0 => usize::MAX,
        1 => usize::MAX - (m as usize & 0xff),
        2..=7 => (m & 0xfffff) as usize,
        _ => (m & 0x3ff) as usize,
    };
    let rest = &data[4..];
    let opts = FlattenOptions { max_chars };
    let result = if data[0] % 2 == 0 {
        let Ok(v) = serde_json::from_slice::<Value>(rest) else {
            // Not JSON: cut the bytes as text instead.
            let s = String::from_utf8_lossy(rest).into_owned();
            check_cut(&truncate_utf16(s.clone(), max_chars), &s, max_chars, "truncate_utf16");
            return;
        };
        // A recorded JSON-RPC response: its result.
        let v = match v {
            Value::Object(mut o) if o.contains_key("result") && o.contains_key("jsonrpc") => o.remove("result").unwrap_or_default(),
            v => v,
        };
        match CallToolResult::from_value(v) {
            Ok(r) => r,
            Err(_) => return,
        }
    } else {
        let mut u = Unstructured::new(rest);
        let n = u.int_in_range(0..=16).unwrap_or(0);
        let mut blocks = Vec::new();
        for _ in 0..n {
            match block(&mut u) {
                Ok(b) => blocks.push(b),
                Err(_) => break,
            }
        }
        CallToolResult::from_value(Value::Array(blocks)).expect("an array of blocks is a result")
    };

    let uncut = flatten_content(&result.content, FlattenOptions { max_chars: usize::MAX });
    let out = flatten_content(&result.content, opts);
    check_cut(&out, &uncut, max_chars, "flatten_content");
    check_cut(&truncate_utf16(uncut.clone(), max_chars), &uncut, max_chars, "truncate_utf16");
    // The whole result (structuredContent as JSON after the content unless a text block is it) obeys the same cap.
    let whole = flatten_result(&result, opts);
    let whole_uncut = flatten_result(&result, FlattenOptions { max_chars: usize::MAX });
    if utf16_len(&whole_uncut) <= max_chars {
        assert_eq!(whole, whole_uncut, "flatten_result: max_chars {max_chars}: text that fits was changed");
    } else {
        assert!(utf16_len(&whole) <= max_chars, "flatten_result: max_chars {max_chars}: {whole:?}");
    }
});
