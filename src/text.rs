//! Compact JSON text, byte for byte what `serde_json::to_string` writes, but faster.
//!
//! Every conversion ends by writing JSON text (the JSON API returns it; the object API hands it
//! to one `JSON.parse`), and most of that text is strings: descriptions, property names, enum
//! values. serde_json checks a string for characters to escape one byte at a time through its
//! `Serializer` machinery; here eight bytes are checked at once and written straight into the
//! buffer. Numbers go to serde_json itself, so they are spelled exactly as it spells them; text
//! a model reads spells them as JavaScript does instead ([`to_string_js`]).

use serde_json::Value;

/// `v` as compact JSON text, equal to `serde_json::to_string(v)`.
pub fn to_string(v: &Value) -> String {
    let mut out = Vec::with_capacity(128);
    write_value(&mut out, v);
    into_string(out)
}

/// [`to_string`] into a buffer sized for `v` at the start ([`size_hint`]): a large value (a tool's
/// result of megabytes) is written without the buffer doubling its way up to it, which in wasm
/// leaves each block it outgrew behind in memory the module keeps, and may take twice its size.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn to_string_sized(v: &Value) -> String {
    let mut out = Vec::with_capacity(size_hint(v));
    write_value(&mut out, v);
    into_string(out)
}

/// About the length of `v` as compact JSON, read from its shape without looking into its strings
/// (escapes, rare, are not counted; a number counts 4 bytes): at most a little more, most often
/// a little less, than what [`write_value`] writes.
fn size_hint(v: &Value) -> usize {
    match v {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 4,
        Value::String(s) => s.len() + 2,
        Value::Array(items) => 2 + items.iter().map(|i| size_hint(i) + 1).sum::<usize>(),
        Value::Object(map) => 2 + map.iter().map(|(k, v)| k.len() + 4 + size_hint(v)).sum::<usize>(),
    }
}

/// `s.to_owned()`, out of line. Inlined, a copy of a `&str` into a new `String` is an
/// allocation, a copy and the string's fields written at each of the crate's 130-odd calls.
pub(crate) trait Owned {
    /// The text as a new `String`.
    fn owned(&self) -> String;
}

impl Owned for str {
    #[inline(never)]
    fn owned(&self) -> String {
        self.to_owned()
    }
}

/// Text this module (and ASCII punctuation around it) wrote: always UTF-8.
pub(crate) fn into_string(out: Vec<u8>) -> String {
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Appends `v` as compact JSON.
pub(crate) fn write_value(out: &mut Vec<u8>, v: &Value) {
    write_value_as::<false>(out, v);
}

/// [`to_string`], but with numbers as JavaScript spells them ([`write_js_number`]): for text a
/// model reads (the notes of a description, Gemini's enum values as strings), which is then the
/// same whether the tools came as JS objects (whose numbers JavaScript spelled before the text
/// was read) or as JSON text (`1.0`, `1e2`, `-0` as written).
pub fn to_string_js(v: &Value) -> String {
    let mut out = Vec::with_capacity(16);
    write_value_as::<true>(&mut out, v);
    into_string(out)
}

/// [`to_string_js`] of which only the first `keep` UTF-16 units or a little more are written
/// (all of it when shorter; never past a character), and the UTF-16 length of the whole: what a
/// cap of fewer than `keep` units needs of a value's JSON, written in memory bounded by `keep`
/// whatever the value's size.
pub(crate) fn to_string_js_within(v: &Value, keep: usize) -> (String, usize) {
    let mut w = Within { out: Vec::new(), kept: 0, keep, done: false, units: 0 };
    w.value(v);
    (into_string(w.out), w.units)
}

/// [`to_string_js_within`]'s writer.
struct Within {
    out: Vec<u8>,
    /// UTF-16 units in `out`.
    kept: usize,
    keep: usize,
    /// Whether `out` ends where it was cut: nothing more is written.
    done: bool,
    /// UTF-16 units of the whole JSON.
    units: usize,
}

impl Within {
    /// ASCII text (punctuation, a number, a literal).
    fn ascii(&mut self, b: &[u8]) {
        self.units += b.len();
        if !self.done {
            self.out.extend_from_slice(b);
            self.kept += b.len();
            self.done = self.kept >= self.keep;
        }
    }

    fn string(&mut self, s: &str) {
        // Its quotes, its units and one more for each escape (`\"`), five more for `\u00xx`.
        let escapes: usize = match needs_escape(s) {
            false => 0,
            true => s.bytes().map(|b| match b {
                b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => 1,
                0x00..=0x1f => 5,
                _ => 0,
            }).sum(),
        };
        let len = crate::content::utf16_len(s);
        self.units += 2 + len + escapes;
        if self.done {
            return;
        }
        let at = self.out.len();
        if self.kept + 2 + len + escapes <= self.keep {
            write_str(&mut self.out, s);
            self.kept += 2 + len + escapes;
            self.done = self.kept >= self.keep;
            return;
        }
        // Cut: a prefix of the string (escaped, each escape whole), without its closing quote.
        let (bytes, _) = crate::content::prefix_chars(s, self.keep - self.kept);
        write_str(&mut self.out, &s[..bytes]);
        self.out.pop();
        self.kept += self.out.len() - at;
        self.done = true;
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                self.ascii(b"[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.ascii(b",");
                    }
                    self.value(item);
                }
                self.ascii(b"]");
            }
            Value::Object(map) => {
                self.ascii(b"{");
                for (i, (k, x)) in map.iter().enumerate() {
                    if i > 0 {
                        self.ascii(b",");
                    }
                    self.string(k);
                    self.ascii(b":");
                    self.value(x);
                }
                self.ascii(b"}");
            }
            other => {
                let mut buf = Vec::new();
                write_value_js(&mut buf, other);
                self.ascii(&buf);
            }
        }
    }
}

/// [`to_string_js`] appended to `out`.
pub(crate) fn write_value_js(out: &mut Vec<u8>, v: &Value) {
    write_value_as::<true>(out, v);
}

/// [`write_value`], its numbers as serde_json spells them, or (`JS`) as JavaScript does.
fn write_value_as<const JS: bool>(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) if JS => write_js_number(out, n),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value_as::<JS>(out, item);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(out, k);
                out.push(b':');
                write_value_as::<JS>(out, v);
            }
            out.push(b'}');
        }
    }
}

/// Appends `n` as JavaScript's `Number.prototype.toString` (and so `JSON.stringify`) spells the
/// double it is: `1.0` and `1e2` as `1` and `100`, `-0` as `0`, the shortest digits that read
/// back as the same double (of two as close, the even one, as V8 and serde_json both take), an
/// exponent (`1e+21`, `1.5e-7`) outside 10⁻⁶ ≤ |n| < 10²¹. An integer within 2⁵³ is written as
/// it is (the double is that integer); a larger one as its double, which is what a JS caller's
/// number holds.
pub(crate) fn write_js_number(out: &mut Vec<u8>, n: &serde_json::Number) {
    const EXACT: u64 = 1 << 53;
    if n.as_u64().is_some_and(|u| u <= EXACT) || n.as_i64().is_some_and(|i| i.unsigned_abs() <= EXACT) {
        return write_number(out, n);
    }
    let Some(f) = n.as_f64() else { return write_number(out, n) };
    let (digits, at) = decimal(f);
    if digits.is_empty() {
        // `-0` too: `String(-0)` and `JSON.stringify(-0)` are "0".
        return out.push(b'0');
    }
    if f < 0.0 {
        out.push(b'-');
    }
    // ECMAScript's Number::toString, with its n = `at` and k = the number of digits.
    let k = i32::try_from(digits.len()).unwrap_or(0);
    if (-5..=21).contains(&at) {
        lay_out(out, &digits, at);
    } else {
        out.push(digits[0]);
        if k > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.extend_from_slice(if at > 0 { b"e+" } else { b"e-" });
        out.extend_from_slice((at - 1).unsigned_abs().to_string().as_bytes());
    }
}

/// Appends `{"key":…,…}` with each value written by `value` (for writers that treat some
/// keys' values specially).
pub(crate) fn write_object<'m, K: AsRef<str>, V: 'm>(
    out: &mut Vec<u8>,
    entries: impl IntoIterator<Item = (K, &'m V)>,
    mut value: impl FnMut(&mut Vec<u8>, &str, &V),
) {
    out.push(b'{');
    for (i, (k, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, k.as_ref());
        out.push(b':');
        value(out, k.as_ref(), v);
    }
    out.push(b'}');
}

/// Appends `n` as serde_json spells it.
pub(crate) fn write_number(out: &mut Vec<u8>, n: &serde_json::Number) {
    // Writing to memory cannot fail, and every Number serialises.
    let _ = serde_json::to_writer(&mut *out, n);
}

/// `n` as Rust's `Display` writes it (`n.to_string()`: the shortest digits that read back as `n`,
/// never an exponent; `-0`, `-inf`, `NaN`), from the digits serde_json writes. Rust's own float
/// formatting (`core::fmt::float`: Grisu, Dragon and their tables) is then not in the module;
/// serde_json's writer is, for the numbers of every JSON text. Both take the shortest digits
/// closest to the value; where two are as close, serde_json takes the even one and Rust the
/// larger, which is put right here ([`is_half_way`]).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn f64_display(n: f64) -> String {
    if n.is_nan() {
        return "NaN".owned();
    }
    if n.is_infinite() {
        return if n < 0.0 { "-inf" } else { "inf" }.owned();
    }
    let (mut digits, mut at) = decimal(n);
    let len = |d: &[u8]| i32::try_from(d.len()).unwrap_or(0);
    let trim = |d: &mut Vec<u8>| d.truncate(d.len() - d.iter().rev().take_while(|&&b| b == b'0').count());
    if !digits.is_empty() && is_half_way(n, &digits, at - len(&digits) - 1) {
        // One up, carried: `..19` is `..2`, `99` is `1` one place up.
        match digits.iter().rposition(|&b| b != b'9') {
            Some(i) => {
                digits[i] += 1;
                digits.truncate(i + 1);
            }
            None => {
                digits = vec![b'1'];
                at += 1;
            }
        }
        trim(&mut digits);
    }
    let mut out = Vec::with_capacity(24);
    if n.is_sign_negative() {
        out.push(b'-');
    }
    if digits.is_empty() {
        out.push(b'0');
    } else {
        lay_out(&mut out, &digits, at);
    }
    into_string(out)
}

/// The shortest decimal digits of a finite `n` as serde_json writes them (the closest to `n`; of
/// two as close, the even one) and where the point goes: `|n|` is `0.DIGITS x 10^at`, the digits
/// without leading or trailing zeros (none for zero).
fn decimal(n: f64) -> (Vec<u8>, i32) {
    let mut json = Vec::with_capacity(24);
    if let Some(num) = serde_json::Number::from_f64(n) {
        write_number(&mut json, &num);
    }
    // `-`? digits (`.` digits)? (`e` sign? digits)?
    let text = json.strip_prefix(b"-").unwrap_or(&json);
    let (mantissa, exp) = match text.iter().position(|&b| b == b'e' || b == b'E') {
        Some(i) => (&text[..i], std::str::from_utf8(&text[i + 1..]).ok().and_then(|e| e.trim_start_matches('+').parse::<i32>().ok()).unwrap_or(0)),
        None => (text, 0),
    };
    let point = mantissa.iter().position(|&b| b == b'.').unwrap_or(mantissa.len());
    let mut digits: Vec<u8> = mantissa.iter().copied().filter(|&b| b != b'.').collect();
    let lead = digits.iter().take_while(|&&b| b == b'0').count();
    digits.drain(..lead);
    digits.truncate(digits.len() - digits.iter().rev().take_while(|&&b| b == b'0').count());
    (digits, i32::try_from(point).unwrap_or(0) - i32::try_from(lead).unwrap_or(0) + exp)
}

/// Appends `0.DIGITS x 10^at` without an exponent (`digits` not empty): `0.00DIGITS`,
/// `DIGITS000` or `DIG.ITS`.
fn lay_out(out: &mut Vec<u8>, digits: &[u8], at: i32) {
    let len = i32::try_from(digits.len()).unwrap_or(0);
    let zeros = |out: &mut Vec<u8>, k: i32| out.resize(out.len() + usize::try_from(k).unwrap_or(0), b'0');
    if at <= 0 {
        out.extend_from_slice(b"0.");
        zeros(out, -at);
        out.extend_from_slice(digits);
    } else if at >= len {
        out.extend_from_slice(digits);
        zeros(out, at - len);
    } else {
        let (int, frac) = digits.split_at(usize::try_from(at).unwrap_or(0));
        out.extend_from_slice(int);
        out.push(b'.');
        out.extend_from_slice(frac);
    }
}

/// Whether `|n|` is exactly `digits` followed by a 5, times `10^e10`: half-way between `digits`
/// and the next digits up. `n` is `m * 2^e2`; with `m = odd * 2^t` and that 5 making the digits
/// odd, this holds when `t + e2 = e10` and `odd * 5^-e10 = digits5` (`e10 < 0`) or `odd =
/// digits5 * 5^e10` (`e10 >= 0`). Past what `u128` holds it cannot hold: `digits5` then has
/// more digits than any f64's shortest form and one more.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn is_half_way(n: f64, digits: &[u8], e10: i32) -> bool {
    let bits = n.to_bits();
    let exp = i32::try_from((bits >> 52) & 0x7FF).unwrap_or(0);
    let frac = bits & ((1 << 52) - 1);
    let (m, e2) = if exp == 0 { (frac, -1074) } else { (frac | 1 << 52, exp - 1075) };
    if m == 0 || digits.len() > 30 {
        return false;
    }
    let t = i32::try_from(m.trailing_zeros()).unwrap_or(0);
    let odd = u128::from(m >> t);
    let d5 = digits.iter().chain(b"5").fold(0u128, |a, &b| a * 10 + u128::from(b - b'0'));
    let pow5 = |k: i32| (0..k).try_fold(1u128, |a, _| a.checked_mul(5));
    t + e2 == e10
        && if e10 < 0 {
            pow5(-e10).and_then(|p| odd.checked_mul(p)) == Some(d5)
        } else {
            pow5(e10).and_then(|p| d5.checked_mul(p)) == Some(odd)
        }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The marks (the high bit of a byte) of the bytes of `w` that are `"`, `\` or below 0x20, in
/// the classic word-at-a-time tests: a byte equal to `c` is a zero byte of `w ^ c*ONES`, and
/// `(x - ONES) & !x & HIGH` marks a word's zero bytes, as `(w - 0x20*ONES) & !w & HIGH` marks its
/// bytes below 0x20. Exact for the first byte marked (a borrow can only mark bytes above one that
/// really matches), so exact as a yes/no for the whole word too.
#[inline(always)]
fn escape_marks(w: u64) -> u64 {
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    let q = w ^ (ONES * u64::from(b'"'));
    let quote = q.wrapping_sub(ONES) & !q;
    let b = w ^ (ONES * u64::from(b'\\'));
    let backslash = b.wrapping_sub(ONES) & !b;
    (control | quote | backslash) & HIGH
}

/// Whether any of the eight bytes in `w` is `"`, `\` or below 0x20 ([`escape_marks`]).
#[inline]
fn any_to_escape(w: u64) -> bool {
    escape_marks(w) != 0
}

/// The position of the first `"`, `\` or control character at or after `i` (or the end): where
/// a run of a JSON string's plain bytes ends, eight bytes at a time ([`escape_marks`]).
#[inline(always)]
pub(crate) fn string_run_end(bytes: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let marks = escape_marks(u64::from_le_bytes(*chunk));
        if marks != 0 {
            return i + (marks.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        i += 1;
    }
    i
}

/// Appends `s` as a JSON string with serde_json's escapes: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`,
/// `\t`, and `\u00xx` (lowercase hex) for the other control characters; nothing else.
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        if let Some(chunk) = bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
            if !any_to_escape(u64::from_le_bytes(*chunk)) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            0x0c => b"\\f",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x00..=0x1f => &[b'\\', b'u', b'0', b'0', HEX[(b >> 4) as usize], HEX[(b & 0xf) as usize]],
            _ => {
                i += 1;
                continue;
            }
        };
        out.extend_from_slice(&bytes[start..i]);
        out.extend_from_slice(escape);
        i += 1;
        start = i;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Whether [`write_str`] escapes anything in `s`.
pub(crate) fn needs_escape(s: &str) -> bool {
    let mut chunks = s.as_bytes().chunks_exact(8);
    let found = chunks.by_ref().any(|c| c.first_chunk::<8>().is_some_and(|w| any_to_escape(u64::from_le_bytes(*w))));
    found || chunks.remainder().iter().any(|&b| b == b'"' || b == b'\\' || b < 0x20)
}

/// JSON text with every non-ASCII character written as a `\uXXXX` escape (a surrogate pair
/// above U+FFFF): the same JSON value, in ASCII only.
///
/// For text that goes straight to `JSON.parse`. Engines build a string from UTF-8 fast only
/// while it is all ASCII: one accented letter makes the whole string two bytes per character,
/// decoded character by character (Node 20 decodes the corpus's converted tools, 3.8 MB with 741
/// non-ASCII characters, in 12 ms, and the same tools escaped in 2 ms), and `JSON.parse` then
/// reads that wider string. Outside JSON strings valid JSON text is ASCII already, so escaping
/// every non-ASCII character wherever it is keeps the text valid and its value the same.
pub fn ascii_only(text: String) -> String {
    escape_non_ascii(text, usize::MAX)
}

/// [`ascii_only`] when at most one byte in 32 of the text is outside ASCII, else the
/// text as it is: for JSON text handed to JS as a string.
///
/// An engine makes a string from ASCII by a copy, one byte per character, and one character
/// outside ASCII makes it decode the whole text (Node 20 decodes the corpus's 7.5 MB of Gemini
/// tools, 13 of 34 servers with a few such characters, in 22 ms, and the same text escaped in
/// 6 ms). Escaped, a character of `k` UTF-8 bytes takes 6 (12 for a surrogate pair): at most
/// two bytes more per byte escaped, so the text grows by at most 1/16. Text with more of them
/// (a tool set described in Chinese) stays as it is, where escapes would double it.
pub fn ascii_when_sparse(text: String) -> String {
    let allowed = text.len() / SPARSE;
    escape_non_ascii(text, allowed)
}

/// One byte in how many, at most, outside ASCII for [`ascii_when_sparse`] to escape them.
const SPARSE: usize = 32;

/// `text` with its non-ASCII characters escaped, or as it is once more than `allowed` of its
/// bytes turn out to be outside ASCII.
fn escape_non_ascii(text: String, allowed: usize) -> String {
    let i = next_non_ascii(text.as_bytes(), 0);
    if i == text.len() {
        return text;
    }
    escape_from(text, i, allowed)
}

/// [`escape_non_ascii`] from the first byte outside ASCII, at `i` (a function of its own: the
/// first conversion of ASCII text does not compile it, see bench/README.md, "Cold start").
#[inline(never)]
fn escape_from(text: String, mut i: usize, allowed: usize) -> String {
    let bytes = text.as_bytes();
    // Room for what `ascii_when_sparse` lets grow (see there); `ascii_only` may grow it more.
    let mut out = String::with_capacity(bytes.len() + bytes.len() / 8);
    let (mut start, mut outside) = (0, 0);
    while i < bytes.len() {
        // `i` is on a character boundary: the byte before it is ASCII or ends a character.
        out.push_str(&text[start..i]);
        let c = text[i..].chars().next().unwrap_or('\u{fffd}');
        outside += c.len_utf8();
        if outside > allowed {
            return text;
        }
        let mut units = [0u16; 2];
        for u in c.encode_utf16(&mut units) {
            let u = *u as usize;
            for b in [b'\\', b'u', HEX[u >> 12], HEX[(u >> 8) & 0xf], HEX[(u >> 4) & 0xf], HEX[u & 0xf]] {
                out.push(char::from(b));
            }
        }
        start = i + c.len_utf8();
        i = next_non_ascii(bytes, start);
    }
    out.push_str(&text[start..]);
    out
}

/// The index of the first byte at or after `from` that is not ASCII, or `bytes.len()`.
///
/// Words are read with `first_chunk`: copying a sub-slice into a word (`copy_from_slice`) was a
/// call per eight bytes at `opt-level = "z"`, which made this scan 8% of a text conversion.
fn next_non_ascii(bytes: &[u8], from: usize) -> usize {
    const HIGH16: u128 = u128::from_le_bytes([0x80; 16]);
    let mut i = from;
    // Sixteen bytes a step (two words in wasm), then eight.
    while let Some(chunk) = bytes.get(i..).and_then(<[u8]>::first_chunk::<16>) {
        if u128::from_le_bytes(*chunk) & HIGH16 != 0 {
            break;
        }
        i += 16;
    }
    while let Some(chunk) = bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        if u64::from_le_bytes(*chunk) & HIGH != 0 {
            break;
        }
        i += 8;
    }
    while i < bytes.len() && bytes[i] < 0x80 {
        i += 1;
    }
    i
}

/// `str::find` for a short needle (a separator): the byte offset of its first occurrence. Not
/// `str::find` itself, whose searcher (1.8 KB of wasm) a conversion's first call would
/// compile for the two bytes of `__` (see bench/README.md, "Cold start"); a needle of more
/// than 16 bytes goes to it (where comparing at each offset could take long).
pub(crate) fn find(haystack: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() || needle.len() > 16 {
        return find_long(haystack, needle);
    }
    // A match starts on a character boundary: the needle starts with a character's first byte.
    haystack.as_bytes().windows(needle.len()).position(|w| w == needle.as_bytes())
}

#[inline(never)]
fn find_long(haystack: &str, needle: &str) -> Option<usize> {
    haystack.find(needle)
}

/// How many characters of a value an error message quotes ([`quote`]).
pub(crate) const QUOTE_CHARS: usize = 100;

/// How many characters of a server's own text (a JSON-RPC error's message) an error message
/// quotes ([`quote_at_most`]); the error keeps the whole of it in a field of its own.
pub(crate) const SERVER_QUOTE_CHARS: usize = 1024;

/// `s` as a JSON string literal for an error message, cut to its first [`QUOTE_CHARS`]
/// characters with how long it was: a message quotes what was wrong, not a megabyte of it.
pub(crate) fn quote(s: &str) -> String {
    quote_at_most(s, QUOTE_CHARS)
}

/// [`quote`] cut at `max` characters. Besides JSON's escapes (which cover the C0 controls: an
/// escape sequence, a NUL), the characters that act on a terminal or a page rather than show are
/// written as `\uXXXX` ([`is_hidden`]): quoted text, a server's above all, cannot clear a
/// terminal, forge a log line or display reversed.
pub(crate) fn quote_at_most(s: &str, max: usize) -> String {
    let (cut, all) = match s.char_indices().nth(max) {
        None => (s, None),
        Some((end, _)) => (&s[..end], Some(s.chars().count())),
    };
    let mut out = Vec::with_capacity(cut.len() + 2);
    write_str(&mut out, cut);
    let quoted = escape_hidden(into_string(out));
    match all {
        None => quoted,
        Some(n) => format!("{quoted}… ({n} characters in all)"),
    }
}

/// A server's text (a header, a field of its answer) for an error message: [`quote_at_most`] at
/// [`SERVER_QUOTE_CHARS`]. It may be of any length and hold what a terminal or a page would act on.
pub(crate) fn server_text(s: &str) -> String {
    quote_at_most(s, SERVER_QUOTE_CHARS)
}

/// A value of a server's answer for an error message: a string as [`server_text`] quotes it,
/// anything else as JSON, cut at [`SERVER_QUOTE_CHARS`] characters with what would not show
/// escaped ([`excerpt`]).
pub(crate) fn server_value(v: &Value) -> String {
    match v {
        Value::String(s) => server_text(s),
        v => excerpt(&to_string(v), SERVER_QUOTE_CHARS),
    }
}

/// Text for an error message as it is, without quotes, but for what would not show as text:
/// tabs and line breaks become spaces (a message is one line), the other C0 controls and the
/// [`is_hidden`] characters `\uXXXX`.
pub(crate) fn printable(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' | '\n' | '\r' => out.push(' '),
            c if c < ' ' || is_hidden(c) => push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// [`printable`] of the first `max` characters of `s`, with how long it was when that is more.
pub(crate) fn excerpt(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => printable(s),
        Some((end, _)) => format!("{}… ({} characters in all)", printable(&s[..end]), s.chars().count()),
    }
}

/// `c` (a control or an [`is_hidden`] character) as JSON writes it escaped: `\uXXXX`, past
/// U+FFFF its two UTF-16 halves (a tag character U+E0041 as `\udb40\udc41`).
fn push_escaped(out: &mut String, c: char) {
    use std::fmt::Write as _;
    let mut units = [0; 2];
    for unit in c.encode_utf16(&mut units) {
        let _ = write!(out, "\\u{:04x}", unit);
    }
}

/// Appends `/token` to a JSON pointer, `~` and `/` escaped (`~0`, `~1`). Bytes, not chars, are
/// looked at first: most tokens have neither, and a char-set pattern decodes every character.
pub(crate) fn push_pointer_token(path: &mut String, token: &str) {
    path.push('/');
    if token.bytes().any(|b| b == b'~' || b == b'/') {
        for c in token.chars() {
            match c {
                '~' => path.push_str("~0"),
                '/' => path.push_str("~1"),
                c => path.push(c),
            }
        }
    } else {
        path.push_str(token);
    }
}

/// Characters JSON leaves as they are that act rather than show: DEL and the C1 controls
/// (U+0080 to U+009F, CSI among them, which terminals obey), the line and paragraph separators,
/// and the format characters ([`is_format`]): the bidirectional controls (marks, embeddings,
/// overrides, isolates), which reorder the text after them (U+202E shows `evil` as `live`), and
/// the invisible ones (a zero-width space, a word joiner, U+FEFF, the soft hyphen, the tag
/// characters), with which a quoted name reads as the name it is not.
pub(crate) fn is_hidden(c: char) -> bool {
    if c.is_ascii() {
        return c == '\u{7f}';
    }
    matches!(c, '\u{80}'..='\u{9f}' | '\u{2028}' | '\u{2029}') || is_format(c)
}

/// Whether `c` is a format character (Unicode's category Cf): invisible, or nearly, where a
/// name is shown, so that a pattern holding one reads as the name it is not. The zero-width
/// non-joiner and joiner (U+200C, U+200D) are not counted: they are part of how a word is spelt
/// (Persian `فایل‌ها`, many Indic words) or of one emoji (`👨‍💻`), and a server is named so.
pub(crate) fn is_format(c: char) -> bool {
    const CF: [(char, char); 22] = [
        ('\u{AD}', '\u{AD}'),
        ('\u{600}', '\u{605}'),
        ('\u{61C}', '\u{61C}'),
        ('\u{6DD}', '\u{6DD}'),
        ('\u{70F}', '\u{70F}'),
        ('\u{890}', '\u{891}'),
        ('\u{8E2}', '\u{8E2}'),
        ('\u{180E}', '\u{180E}'),
        ('\u{200B}', '\u{200B}'),
        ('\u{200E}', '\u{200F}'),
        ('\u{202A}', '\u{202E}'),
        ('\u{2060}', '\u{2064}'),
        ('\u{2066}', '\u{206F}'),
        ('\u{FEFF}', '\u{FEFF}'),
        ('\u{FFF9}', '\u{FFFB}'),
        ('\u{110BD}', '\u{110BD}'),
        ('\u{110CD}', '\u{110CD}'),
        ('\u{13430}', '\u{1343F}'),
        ('\u{1BCA0}', '\u{1BCA3}'),
        ('\u{1D173}', '\u{1D17A}'),
        ('\u{E0001}', '\u{E0001}'),
        ('\u{E0020}', '\u{E007F}'),
    ];
    !c.is_ascii() && CF.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))
}

/// `text` with its [`is_hidden`] characters written as `\uXXXX` (copied only when it has some).
pub(crate) fn escape_hidden(text: String) -> String {
    if !text.chars().any(is_hidden) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_hidden(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

/// The edit distance between `a` and `b` (by character, two neighbours swapped counting as one
/// edit: `singal` is one edit from `signal`, as a typist makes it) if at most `most`.
pub(crate) fn edit_distance(a: &str, b: &str, most: usize) -> Option<usize> {
    if a.chars().count().abs_diff(b.chars().count()) > most {
        return None;
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows: the one before last for swaps.
    let mut before: Vec<usize> = Vec::new();
    let mut last: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let mut d = (last[j + 1] + 1).min(row[j] + 1).min(last[j] + usize::from(ca != cb));
            if i > 0 && j > 0 && *ca == b[j - 1] && a[i - 1] == *cb {
                d = d.min(before[j - 1] + 1);
            }
            row[j + 1] = d;
        }
        // A row past `most` everywhere stays past it (a swap reaches back one row, to a row no
        // smaller than this one's less one).
        if row.iter().all(|&d| d > most) {
            return None;
        }
        std::mem::swap(&mut before, &mut last);
        std::mem::swap(&mut last, &mut row);
        if row.len() != b.len() + 1 {
            row = vec![0; b.len() + 1];
        }
    }
    Some(last[b.len()]).filter(|&d| d <= most)
}

#[cfg(test)]
mod tests {

    /// `f64_display` writes what `Display` writes, for every kind of f64: random bit patterns
    /// (subnormals, huge and tiny exponents, 17 digits), and values half-way between two
    /// shortest forms, where serde_json and Rust choose differently.
    #[test]
    fn f64_display_is_rust_display() {
        let check = |n: f64| assert_eq!(super::f64_display(n), n.to_string(), "{:#x}", n.to_bits());
        let fixed = [0.0, -0.0, 1.0, -1.0, 1.5, 0.1, 1e21, 1e-7, 123456789012345680000.0, 5e-324, f64::MAX, f64::MIN_POSITIVE, 1e15, 1e16, 1e17, 0.3, -2.5e-5];
        fixed.into_iter().chain([f64::INFINITY, f64::NEG_INFINITY, f64::NAN]).for_each(check);
        // 1394865425023536.25: .2 and .3 both read back; Rust writes .3, serde_json .2.
        check(f64::from_bits(0x4313_d27d_a8ac_08c1));
        check(-f64::from_bits(0x4313_d27d_a8ac_08c1));
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..300_000u64 {
            // xorshift64*
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let bits = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
            check(f64::from_bits(bits));
            check(f64::from(u32::try_from(bits >> 40).unwrap_or(0)) / 1024.0 - 4096.0);
            // Quarters and eighths where the spacing of f64 is that: where half-way cases live.
            let big = f64::from_bits(0x4310_0000_0000_0000 | (bits & 0xF_FFFF_FFFF_FFFF));
            check(big);
            check(big * f64::from(u32::try_from(i % 4096).unwrap_or(1) + 1));
        }
    }

    /// Levenshtein distances, with a swap of neighbours as one edit; `None` past `most`.
    #[test]
    fn edit_distance_counts_a_swap_as_one() {
        use super::edit_distance;
        assert_eq!(edit_distance("signal", "singal", 2), Some(1));
        assert_eq!(edit_distance("url", "ulr", 1), Some(1));
        assert_eq!(edit_distance("strict", "stict", 2), Some(1));
        assert_eq!(edit_distance("abc", "cba", 2), Some(2));
        assert_eq!(edit_distance("kitten", "sitting", 3), Some(3));
        assert_eq!(edit_distance("kitten", "sitting", 2), None);
        assert_eq!(edit_distance("", "ab", 2), Some(2));
        assert_eq!(edit_distance("ab", "ba", 0), None);
        assert_eq!(edit_distance("timeoutMs", "timeoutMs", 0), Some(0));
        assert_eq!(edit_distance("çé", "éç", 1), Some(1));
    }

    /// Numbers for text a model reads are spelled as JavaScript's `String(n)` spells them, so that
    /// JSON text and JS objects give the same words (probe pQ 3).
    #[test]
    fn js_numbers_are_spelled_as_javascript_spells_them() {
        use serde_json::json;
        let js = |text: &str| super::to_string_js(&serde_json::from_str(text).unwrap());
        for (text, expected) in [
            ("1", "1"), ("1.0", "1"), ("100.0", "100"), ("1e2", "100"), ("-0", "0"), ("-0.0", "0"), ("0.5", "0.5"),
            ("-2.5", "-2.5"), ("0.000001", "0.000001"), ("1e-7", "1e-7"), ("1.5e-7", "1.5e-7"), ("1e21", "1e+21"),
            ("123456789012345678901234567890", "1.2345678901234568e+29"), ("1e20", "100000000000000000000"),
            ("9007199254740993", "9007199254740992"), ("1152921504606846976", "1152921504606847000"), ("-9007199254740992", "-9007199254740992"),
            ("0.1", "0.1"), ("1.7976931348623157e308", "1.7976931348623157e+308"), ("5e-324", "5e-324"),
            ("[1.0,{\"a\":-0}]", "[1,{\"a\":0}]"),
            // Of two shortest forms as close (the double is ...536.25), the even one, as V8 writes it.
            ("1394865425023536.25", "1394865425023536.2"), ("0.0000012", "0.0000012"), ("123e-20", "1.23e-18"),
            ("-1e-7", "-1e-7"), ("1.5e300", "1.5e+300"),
        ] {
            assert_eq!(js(text), expected, "{text}");
        }
        // Everything but numbers as `to_string` writes it.
        let v = json!({"s": "a\"b\u{1b}", "n": null, "b": [true, false]});
        assert_eq!(super::to_string_js(&v), super::to_string(&v));
    }

    /// A value's JSON cut past `keep` units is a prefix of it, of `keep` units at least, in a
    /// buffer of about that much (F1, s24e), and its whole length is counted.
    #[test]
    fn to_string_js_within_is_a_prefix_and_the_length() {
        let values = [
            json!({"a": [1, 2.5, 0.0000025, 1e21, -0.0, null, true, false], "b\n\"": "x\u{1}\t\\é😀".repeat(40), "c": {"d": ["é".repeat(300)]}}),
            json!("x".repeat(1000)),
            json!([]),
            json!(12345678901234567890u64),
        ];
        for v in &values {
            let whole = to_string_js(v);
            let len = crate::content::utf16_len(&whole);
            for keep in [0, 1, 2, 5, 17, 50, 64, 100, 333, 1000, 5000] {
                let (kept, units) = to_string_js_within(v, keep);
                assert_eq!(units, len, "{whole}");
                assert!(whole.starts_with(&kept), "{keep}: {kept}");
                let kept_len = crate::content::utf16_len(&kept);
                // At least `keep` (all, if shorter), and past it by a token, or by the escapes of
                // what was cut (`\u0001` for one unit), at most.
                assert!(kept_len >= keep.min(len) && kept_len <= 6 * keep + 24, "{keep}: {kept_len} of {len}");
                assert!(kept.capacity() < 8 * keep + 64, "{keep}: {}", kept.capacity());
            }
        }
    }

    /// A value written into a buffer sized for it is the same text, and a large string's buffer
    /// is not outgrown.
    #[test]
    fn to_string_sized_is_to_string() {
        use serde_json::json;
        for v in [json!(null), json!([1, 2.5, "a\"b", {"k": [true, {}]}]), json!({"content": [{"type": "text", "text": "x".repeat(100_000)}]})] {
            assert_eq!(super::to_string_sized(&v), super::to_string(&v));
            let text = super::to_string_sized(&v);
            assert!(super::size_hint(&v) >= text.len() - text.len() / 8, "{} for {}", super::size_hint(&v), text.len());
        }
    }

    /// Quoted text is cut with its length said, and what a terminal or a page would act on is
    /// escaped; `printable` keeps it on one line, unquoted.
    #[test]
    fn quoted_text_is_cut_and_escaped() {
        assert_eq!(super::quote_at_most("ab\u{1b}[2J\u{0}\u{202e}cd\u{85}", 100), r#""ab\u001b[2J\u0000\u202ecd\u0085""#);
        assert_eq!(super::quote_at_most("abcdef", 3), "\"abc\"… (6 characters in all)");
        assert_eq!(super::printable("a\nb\t\u{1b}c\u{2066}"), r"a b \u001bc\u2066");
        assert_eq!(super::excerpt("é".repeat(5).as_str(), 2), "éé… (5 characters in all)");
    }

    /// A name quoted with an invisible character in it does not read as the name without it: a
    /// zero-width space, a word joiner, U+FEFF, the soft hyphen and the tag characters (one past
    /// U+FFFF as its two UTF-16 halves, as JSON writes it) are escaped; the joiners that spell a
    /// Persian word or an emoji are not.
    #[test]
    fn invisible_characters_are_escaped_in_quotes() {
        assert_eq!(super::quote("search\u{200b}"), r#""search\u200b""#);
        assert_eq!(super::quote("a\u{2060}b\u{feff}c\u{ad}d"), r#""a\u2060b\ufeffc\u00add""#);
        assert_eq!(super::quote("hi\u{e0041}"), r#""hi\udb40\udc41""#);
        assert_eq!(super::printable("x\u{e0041}"), r"x\udb40\udc41");
        assert_eq!(super::quote("فایل\u{200c}ها 👨\u{200d}💻"), "\"فایل\u{200c}ها 👨\u{200d}💻\"");
        // The escapes are JSON's: the quoted text parses back to the name.
        let name = "mcp__s__search\u{200b}\u{e0041}";
        assert_eq!(serde_json::from_str::<String>(&super::quote(name)).unwrap(), name);
    }

    /// `needs_escape` says exactly whether `write_str` escapes anything, for every ASCII byte at
    /// every position of an eight-byte chunk and past it.
    #[test]
    fn needs_escape_is_what_write_str_escapes() {
        for b in 0u8..=127 {
            for at in 0..12 {
                let mut s: String = "é".to_owned() + &"a".repeat(at);
                s.push(b as char);
                s.push_str("xyz");
                let mut out = Vec::new();
                write_str(&mut out, &s);
                let escaped = out != format!("\"{s}\"").into_bytes();
                assert_eq!(needs_escape(&s), escaped, "byte {b:#x} at {at}");
            }
        }
        assert!(!needs_escape("") && !needs_escape("plain text with ü and 😀"));
    }
    use super::*;

    #[test]
    fn string_run_end_finds_the_first_special_byte() {
        let specials = [b'"', b'\\', 0, 0x1f, b'\n'];
        for len in 0..20 {
            for at in 0..=len {
                for &special in &specials {
                    // Bytes around the specials' values that are not special: space, 0x21, 0x5b, 0x5d, 0x7f, 0x80, 0xff.
                    let mut bytes: Vec<u8> = (0..len).map(|i| [b' ', 0x21, 0x5b, 0x5d, 0x7f, 0x80, 0xff][i % 7]).collect();
                    if at < len {
                        bytes[at] = special;
                        if at + 1 < len {
                            bytes[at + 1] = b'"';
                        }
                    }
                    assert_eq!(string_run_end(&bytes, 0), at, "{bytes:?}");
                }
            }
        }
    }
    use serde_json::json;

    /// `find` gives what `str::find` gives, for needles of one to 16 bytes (and past them, where
    /// it is `str::find`), inside and across characters of more than one byte.
    #[test]
    fn find_is_str_find() {
        let long = "_".repeat(17);
        let haystacks = ["", "_", "__", "mcp__server__tool", "a_b__c___d", "\u{e9}__\u{e9}_", "\u{1F600}_\u{1F600}__x", "x".repeat(40).as_str(), &format!("a{long}b"), "sixteen_bytes!!!sixteen_bytes!!!"].map(str::to_owned);
        let needles = ["_", "__", "___", "\u{e9}_", "_\u{1F600}", "x", "xy", "sixteen_bytes!!!", "sixteen_bytes!!!s", "", long.as_str()];
        for h in &haystacks {
            for n in needles {
                assert_eq!(find(h, n), h.find(n), "{h:?} {n:?}");
            }
        }
    }

    fn same(v: &Value) {
        assert_eq!(to_string(v), serde_json::to_string(v).unwrap(), "for {v:?}");
    }

    #[test]
    fn ascii_only_escapes_every_non_ascii_character_and_keeps_the_value() {
        let v = json!({"caf\u{e9}": ["na\u{ef}ve \u{1F600} \u{4e2d}\u{6587}", "plain", "tab\tquote\"", "\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}"]});
        let text = to_string(&v);
        let ascii = ascii_only(text.clone());
        assert!(ascii.is_ascii(), "{ascii}");
        assert_ne!(ascii, text);
        assert_eq!(serde_json::from_str::<Value>(&ascii).unwrap(), v);
        assert!(ascii.contains(r"caf\u00e9"), "{ascii}");
        assert!(ascii.contains(r"\ud83d\ude00"), "astral characters become surrogate pairs: {ascii}");
        // ASCII text is returned as it is, at every length around the eight- and sixteen-byte
        // steps of the scan, and a character after any such length is found.
        for n in 0..40 {
            let plain = "a".repeat(n);
            assert_eq!(ascii_only(plain.clone()), plain);
            let mixed = format!("[\"{plain}\u{e9}{plain}\"]");
            let out = ascii_only(mixed.clone());
            assert!(out.is_ascii());
            assert_eq!(serde_json::from_str::<Value>(&out).unwrap(), serde_json::from_str::<Value>(&mixed).unwrap());
        }
    }

    #[test]
    fn ascii_when_sparse_escapes_only_a_few_non_ascii_bytes() {
        // ASCII comes back as it is.
        let plain = to_string(&json!({"description": "plain"}));
        assert_eq!(ascii_when_sparse(plain.clone()), plain);
        // A few accented letters and an emoji in ASCII text: escaped, the same value.
        let v = json!({"description": format!("{} caf\u{e9} \u{1F600} na\u{ef}ve", "x".repeat(400))});
        let text = to_string(&v);
        let out = ascii_when_sparse(text.clone());
        assert!(out.is_ascii(), "{out}");
        assert_eq!(serde_json::from_str::<Value>(&out).unwrap(), v);
        assert!(out.len() <= text.len() + 2 * (text.len() / SPARSE), "grows by at most two bytes per byte escaped");
        // A description in Chinese: left as it is.
        let v = json!({"description": "\u{8fd4}\u{56de}\u{6587}\u{4ef6}\u{5217}\u{8868}".repeat(20)});
        let text = to_string(&v);
        assert_eq!(ascii_when_sparse(text.clone()), text);
        // The limit, in figures: 2 bytes outside ASCII in 64 are escaped, in 63 they are not;
        // 4 in 128 (an emoji) are, and take 12 bytes: the text grows by 1/16, the most it can.
        let letter = format!("{}\u{e9}", "a".repeat(62));
        assert_eq!(ascii_when_sparse(letter.clone()), format!("{}\\u00e9", "a".repeat(62)));
        let letter = format!("{}\u{e9}", "a".repeat(61));
        assert_eq!(ascii_when_sparse(letter.clone()), letter);
        let emoji = format!("{}\u{1F600}", "a".repeat(124));
        assert_eq!(ascii_when_sparse(emoji).len(), 136);
        // The limit: `k` two-byte letters in text of SPARSE bytes per letter byte are escaped;
        // one letter more is not.
        for k in [1, 3, 50] {
            let at_limit = format!("{}{}", "a".repeat(2 * k * (SPARSE - 1)), "\u{e9}".repeat(k));
            assert_eq!(at_limit.len(), 2 * k * SPARSE);
            let escaped = ascii_when_sparse(at_limit.clone());
            assert!(escaped.is_ascii(), "{k} letters in {} bytes", at_limit.len());
            assert_eq!(escaped, "a".repeat(2 * k * (SPARSE - 1)) + &r"\u00e9".repeat(k));
            let over = format!("{at_limit}\u{e9}");
            assert_eq!(ascii_when_sparse(over.clone()), over, "{} letters in {} bytes", k + 1, over.len());
        }
    }

    #[test]
    fn every_byte_is_escaped_as_serde_json_escapes_it() {
        for b in 0u32..0x80 {
            let c = char::from_u32(b).unwrap();
            // The byte alone, at each offset within and across an eight-byte word.
            for pad in 0..17 {
                let s: String = "a".repeat(pad) + &c.to_string() + &"é".repeat(pad % 5);
                same(&Value::String(s));
            }
        }
        same(&json!("\u{7f}\u{80}\u{ffff}\u{10ffff} \"quoted\" back\\slash\n\u{1}\u{1f}"));
    }

    #[test]
    fn values_are_written_as_serde_json_writes_them() {
        same(&json!(null));
        same(&json!({"a": [1, -2, 3.5, 1e300, 0.1, -0.0, u64::MAX, i64::MIN, true, false, null], "": {}, "b": [], "c\td": "x"}));
        let mut m = serde_json::Map::new();
        for k in ["z", "a", "m"] {
            m.insert(k.into(), json!(k));
        }
        same(&Value::Object(m)); // insertion order
    }

    // proptest is a native-only dev-dependency (see Cargo.toml).
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #[test]
        fn any_string_is_written_as_serde_json_writes_it(s in "(?s).{0,40}", t in proptest::collection::vec(0u8..0x80, 0..40)) {
            same(&Value::String(s));
            same(&Value::String(String::from_utf8(t).unwrap()));
        }

        #[test]
        fn ascii_only_text_reads_back_as_the_same_value(s in "(?s).{0,40}", k in "(?s).{0,8}") {
            let v = serde_json::json!([s, {k: 1.5}]);
            let ascii = ascii_only(to_string(&v));
            proptest::prop_assert!(ascii.is_ascii());
            proptest::prop_assert_eq!(serde_json::from_str::<Value>(&ascii).unwrap(), v);
        }
    }
}
