//! The reader of the borrowed tree: JSON text to a [`Node`], for the pass-through path only.
//!
//! It accepts a subset of what serde_json accepts and reads it to the same values: anything
//! it does not take (invalid JSON, a lone surrogate escape, nesting past 127 levels, more
//! than [`MAX_JSON_ITEMS`] items) makes it return `None`, and the
//! general path then reads the text with serde_json, with serde_json's errors. Numbers other
//! than plain integers are handed to serde_json, so that every float is its float.
//!
//! It exists because it is faster than driving a serde visitor: no error values on the way,
//! strings scanned eight bytes at a time, and the tree built straight from the bytes.

use bumpalo::Bump;
use serde_json::Value;

use super::{keys_unique, Node, Text};
use crate::text;
use crate::model::MAX_JSON_ITEMS;

/// The deepest nesting this reader takes: deeper text (rare: a schema some 60 levels deep) is
/// read by the general path, up to [`crate::model::MAX_JSON_NESTING`].
const MAX_NESTING: usize = 127;

/// Reads all of `text` (trailing characters other than whitespace are refused, as with
/// `serde_json::from_str`).
#[cfg(test)]
pub(super) fn read<'a>(text: &'a str, arena: &'a Bump) -> Option<Node<'a>> {
    read_measured(text, arena).map(|(node, ..)| node)
}

/// What [`read_measured`] saw of the whole text, on the way: enough to pass every part of it
/// within limits that the whole is within, without walking the tree again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Figures {
    /// Values, the outermost included.
    pub(super) nodes: usize,
    /// The deepest nesting of arrays and objects.
    pub(super) depth: usize,
    /// The longest string, keys included, in bytes (unescaped).
    pub(super) longest_string: usize,
    /// Whether some object has a `$ref` key.
    pub(super) refs: bool,
    /// Whether every object's keys are unique.
    pub(super) unique: bool,
}

/// What the reader noted of an `inputSchema` object (one with entries: an empty object's
/// entries have no address of their own). `entries` is the object's entries in the arena (its
/// identity, see [`SchemaNote::of`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct SchemaNote<'a> {
    entries: usize,
    /// The object's text, when it is what writing its tree gives ([`Node::write`]) byte for
    /// byte: compact (no whitespace), escaped as `text::write_str` escapes (as `JSON.stringify`
    /// and serde_json do), no number but a plain integer.
    pub(super) verbatim: Option<&'a str>,
    /// Whether some object within it has a `$ref` key.
    pub(super) refs: bool,
    /// Its objects, itself included (`refs::count_nodes`, which counts those past 256 levels
    /// as one: no tree read here is that deep).
    pub(super) objects: usize,
}

impl<'a> SchemaNote<'a> {
    /// The note on `node` among `found` (the next ones first: they are in reading order), if
    /// it is one of them.
    pub(super) fn of(node: &Node, found: &[SchemaNote<'a>], next: &mut usize) -> Option<SchemaNote<'a>> {
        let Node::Obj(entries) = node else { return None };
        let at = entries.as_ptr() as usize;
        // A tool's own schema comes next, unless a property named `inputSchema` within it was
        // noted before it: a few steps at most.
        let i = found.get(*next..)?.iter().take(4).position(|v| v.entries == at)? + *next;
        *next = i + 1;
        Some(found[i])
    }
}

/// The nesting of the objects whose `inputSchema` may be a tool's: a tool in a list, in
/// `{tools}`, in `{result: {tools}}`.
const TOOL_NESTING: usize = 4;

/// [`read`], with the [`Figures`] of the text and its notes on `inputSchema` objects, in
/// reading order.
pub(super) fn read_measured<'a>(text: &'a str, arena: &'a Bump) -> Option<(Node<'a>, Figures, Vec<SchemaNote<'a>>)> {
    let mut r = Reader {
        text,
        arena,
        bytes: text.as_bytes(),
        pos: 0,
        nesting: 0,
        items: 0,
        entries: Vec::new(),
        values: Vec::new(),
        depth: 0,
        longest: 0,
        ref_keys: 0,
        unique: true,
        loose: 0,
        schemas: Vec::new(),
        objects: 0,
    };
    let node = r.value()?;
    r.skip_whitespace();
    let figures = Figures { nodes: r.items + 1, depth: r.depth, longest_string: r.longest, refs: r.ref_keys > 0, unique: r.unique };
    (r.pos == r.bytes.len()).then_some((node, figures, r.schemas))
}

/// The entries of the objects and the items of the arrays being read wait on two stacks
/// shared by the whole read, and each container, when it ends, moves them to a slice of
/// exactly its size in the arena.
struct Reader<'a> {
    text: &'a str,
    arena: &'a Bump,
    bytes: &'a [u8],
    pos: usize,
    nesting: usize,
    items: usize,
    entries: Vec<(Text<'a>, Node<'a>)>,
    values: Vec<Node<'a>>,
    /// For [`Figures`]: the deepest `nesting`, the longest string, how many keys were `$ref`
    /// and whether every object's keys were unique.
    depth: usize,
    longest: usize,
    ref_keys: usize,
    unique: bool,
    /// Counts what writing a tree would not give back as read: whitespace bytes, escapes other
    /// than those `text::write_str` writes, numbers other than plain integers. A value read
    /// without it moving is [`SchemaNote::verbatim`].
    loose: usize,
    schemas: Vec<SchemaNote<'a>>,
    /// The objects read so far (for [`SchemaNote::objects`]).
    objects: usize,
}

impl<'a> Reader<'a> {
    #[inline(always)]
    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.bytes.get(self.pos) {
            self.pos += 1;
            self.loose += 1;
        }
    }

    /// The next byte after whitespace, consumed.
    #[inline(always)]
    fn next_token(&mut self) -> Option<u8> {
        self.skip_whitespace();
        let b = *self.bytes.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    fn value(&mut self) -> Option<Node<'a>> {
        match self.next_token()? {
            b'"' => Some(Node::Str(self.string()?)),
            b'{' => self.object(),
            b'[' => self.array(),
            b't' => self.literal(b"rue", Node::Bool(true)),
            b'f' => self.literal(b"alse", Node::Bool(false)),
            b'n' => self.literal(b"ull", Node::Null),
            b'-' | b'0'..=b'9' => {
                self.pos -= 1;
                self.number()
            }
            _ => None,
        }
    }

    fn literal(&mut self, rest: &[u8], node: Node<'a>) -> Option<Node<'a>> {
        let end = self.pos + rest.len();
        (self.bytes.get(self.pos..end)? == rest).then(|| {
            self.pos = end;
            node
        })
    }

    /// Counts one more item of a container, and enters or leaves one.
    fn count(&mut self) -> Option<()> {
        self.items += 1;
        (self.items <= MAX_JSON_ITEMS).then_some(())
    }
    fn enter(&mut self) -> Option<()> {
        self.nesting += 1;
        self.depth = self.depth.max(self.nesting);
        (self.nesting <= MAX_NESTING).then_some(())
    }

    fn array(&mut self) -> Option<Node<'a>> {
        self.enter()?;
        let start = self.values.len();
        self.skip_whitespace();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
        } else {
            loop {
                let v = self.value()?;
                self.count()?;
                self.values.push(v);
                match self.next_token()? {
                    b',' => {}
                    b']' => break,
                    _ => return None,
                }
            }
        }
        self.nesting -= 1;
        let items = self.arena.alloc_slice_copy(&self.values[start..]);
        self.values.truncate(start);
        Some(Node::Arr(items))
    }

    fn object(&mut self) -> Option<Node<'a>> {
        self.enter()?;
        self.objects += 1;
        let start = self.entries.len();
        let mut token = self.next_token()?;
        if token != b'}' {
            loop {
                if token != b'"' {
                    return None;
                }
                let key = self.string()?;
                self.ref_keys += usize::from(key.s.len() == 4 && key.s == "$ref");
                if self.next_token()? != b':' {
                    return None;
                }
                let v = if self.nesting <= TOOL_NESTING && key.s == "inputSchema" { self.schema()? } else { self.value()? };
                self.count()?;
                self.entries.push((key, v));
                match self.next_token()? {
                    b',' => token = self.next_token()?,
                    b'}' => break,
                    _ => return None,
                }
            }
        }
        self.nesting -= 1;
        self.unique = self.unique && keys_unique(&self.entries[start..]);
        let entries = self.arena.alloc_slice_copy(&self.entries[start..]);
        self.entries.truncate(start);
        Some(Node::Obj(entries))
    }

    /// The value of an `inputSchema` key, noted ([`SchemaNote`]) if it is an object with entries.
    fn schema(&mut self) -> Option<Node<'a>> {
        self.skip_whitespace();
        let (start, loose, ref_keys, objects) = (self.pos, self.loose, self.ref_keys, self.objects);
        let v = self.value()?;
        if let Node::Obj(entries) = v {
            if !entries.is_empty() {
                let verbatim = if self.loose == loose { Some(self.text.get(start..self.pos)?) } else { None };
                let (refs, objects) = (self.ref_keys > ref_keys, self.objects - objects);
                self.schemas.push(SchemaNote { entries: entries.as_ptr() as usize, verbatim, refs, objects });
            }
        }
        Some(v)
    }

    /// A string after its opening quote: the input's text unless it holds an escape.
    #[inline(always)]
    fn string(&mut self) -> Option<Text<'a>> {
        let start = self.pos;
        let end = text::string_run_end(self.bytes, start);
        match *self.bytes.get(end)? {
            b'"' => {
                self.pos = end + 1;
                self.longest = self.longest.max(end - start);
                Some(Text::raw(self.text.get(start..end)?))
            }
            b'\\' => self.escaped(start, end).map(|s| {
                self.longest = self.longest.max(s.len());
                Text::unescaped(s)
            }),
            _ => None, // a control character, which JSON strings cannot hold raw
        }
    }

    /// The rest of a string from its first escape, at `at`, unescaped in the arena.
    fn escaped(&mut self, start: usize, mut at: usize) -> Option<&'a str> {
        let mut s = bumpalo::collections::String::with_capacity_in(at - start + 16, self.arena);
        s.push_str(self.text.get(start..at)?);
        loop {
            // At a backslash.
            let c = match *self.bytes.get(at + 1)? {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => {
                    // Written back unescaped.
                    self.loose += 1;
                    '/'
                }
                b'b' => '\x08',
                b'f' => '\x0c',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    let high = self.hex4(at + 2)?;
                    // Written back as it is only if it is a control character without a short
                    // escape, in lower-case hex (as `text::write_str` and `JSON.stringify` write it).
                    let written = high < 0x20 && !matches!(high, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) && {
                        let digits = &self.bytes[at + 2..at + 6];
                        digits[..2] == *b"00" && !digits[2..].iter().any(u8::is_ascii_uppercase)
                    };
                    self.loose += usize::from(!written);
                    at += 4;
                    match high {
                        0xD800..=0xDBFF => {
                            // Only a pair: serde_json refuses a lone surrogate.
                            if self.bytes.get(at + 2..at + 4)? != b"\\u" {
                                return None;
                            }
                            let low = self.hex4(at + 4)?;
                            if !(0xDC00..=0xDFFF).contains(&low) {
                                return None;
                            }
                            at += 6;
                            char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))?
                        }
                        0xDC00..=0xDFFF => return None,
                        c => char::from_u32(c)?,
                    }
                }
                _ => return None,
            };
            s.push(c);
            let from = at + 2;
            let end = text::string_run_end(self.bytes, from);
            s.push_str(self.text.get(from..end)?);
            match *self.bytes.get(end)? {
                b'"' => {
                    self.pos = end + 1;
                    return Some(s.into_bump_str());
                }
                b'\\' => at = end,
                _ => return None,
            }
        }
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let digits = self.bytes.get(at..at + 4)?;
        digits.iter().try_fold(0, |n, &d| Some(n << 4 | (d as char).to_digit(16)?))
    }

    /// A number: a plain integer read here, anything else by serde_json (its floats exactly).
    fn number(&mut self) -> Option<Node<'a>> {
        let start = self.pos;
        let negative = self.bytes[start] == b'-';
        self.pos += negative as usize;
        let digits = self.pos;
        let mut n: u64 = 0;
        let mut overflow = false;
        while let Some(&d @ b'0'..=b'9') = self.bytes.get(self.pos) {
            match n.checked_mul(10).and_then(|n| n.checked_add(u64::from(d - b'0'))) {
                Some(m) => n = m,
                None => overflow = true,
            }
            self.pos += 1;
        }
        // One digit at least, and no leading zero.
        if self.pos == digits || (self.bytes[digits] == b'0' && self.pos > digits + 1) {
            return None;
        }
        let mut plain = !overflow;
        if self.bytes.get(self.pos) == Some(&b'.') {
            plain = false;
            self.pos += 1;
            self.digits()?;
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.pos) {
            plain = false;
            self.pos += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.pos) {
                self.pos += 1;
            }
            self.digits()?;
        }
        match (plain, negative) {
            (true, false) => return Some(Node::Num(self.arena.alloc(n.into()))),
            // serde_json reads `-0` as a float, and so a negative integer past i64.
            (true, true) if n != 0 && n <= 1 << 63 => return Some(Node::Num(self.arena.alloc((n as i64).wrapping_neg().into()))),
            _ => self.loose += 1,
        }
        self.number_by_serde(start)
    }

    /// The number from `start` to here, read by serde_json (a function of its own: the first
    /// call on text of plain integers does not compile it, see bench/README.md, "Cold start").
    #[inline(never)]
    fn number_by_serde(&mut self, start: usize) -> Option<Node<'a>> {
        match serde_json::from_str(self.text.get(start..self.pos)?) {
            Ok(Value::Number(n)) => Some(Node::Num(self.arena.alloc(n))),
            _ => None,
        }
    }

    /// One digit or more.
    fn digits(&mut self) -> Option<()> {
        let from = self.pos;
        while let Some(b'0'..=b'9') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
        (self.pos > from).then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `read` takes what serde_json takes, to the same value, or nothing.
    fn same(text: &str) -> bool {
        let arena = Bump::new();
        let ours = read(text, &arena).map(|n| n.to_value());
        let theirs = serde_json::from_str::<Value>(text).ok();
        if let Some(v) = &ours {
            assert_eq!(Some(v), theirs.as_ref(), "{text:?}");
        }
        ours.is_some()
    }

    #[test]
    fn reads_what_serde_json_reads() {
        let taken = [
            "0", "-1", "7", "18446744073709551615", "-9223372036854775808", "1.5", "-0", "-0.0", "1e3", "1E+3", "2.5e-3",
            "18446744073709551616", "-9223372036854775809", "123456789012345678901234567890", "0.1", "1.7976931348623157e308",
            "5e-324", "true", "false", "null", "\"\"", "\"plain é 😀 /\"", r#""\"\\\/\b\f\n\r\t""#, r#""\u00e9\ud83d\ude00\u0000x""#,
            r#""a\u0041b""#, "[]", "{}", " [ 1 , [ ] , { } ] ", r#"{"a":1,"a":2}"#, "\t\n\r {\"k\" : [true,false,null]}\n",
            r#"{"long":"0123456789abcdef0123456789abcdef\"0123456789abcdef\\x"}"#,
        ];
        for text in taken {
            assert!(same(text), "{text:?} not read");
        }
        let refused = [
            "", " ", "01", "-", "-01", "1.", ".5", "1e", "1e+", "+1", "1.5x", "tru", "truex", "nul", "[1,]", "[1 2]", "{\"a\"}",
            "{\"a\":1,}", "{a:1}", "{\"a\":1 \"b\":2}", "[", "]", "[1]]", "\"abc", "\"a\u{1}b\"", "\"\\x\"", "\"\\u12\"",
            "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\ud800x\"", "1e400", "-1e400", "[1] [2]", "\"\\", "{\"a\":",
        ];
        for text in refused {
            assert!(!same(text), "{text:?} read");
        }
    }

    /// The `inputSchema` texts noted as verbatim in a tool list, by tool.
    fn verbatim(text: &str) -> Vec<Option<String>> {
        let arena = Bump::new();
        let (node, _, found) = read_measured(text, &arena).expect(text);
        let Node::Arr(tools) = node else { panic!("{text}") };
        let mut next = 0;
        tools
            .iter()
            .map(|t| {
                let schema = t.get("inputSchema")?;
                let text = SchemaNote::of(schema, &found, &mut next)?.verbatim?;
                // The noted text is what writing the tree gives.
                let mut written = Vec::new();
                schema.write(&mut written);
                assert_eq!(String::from_utf8(written).unwrap(), text);
                Some(text.to_owned())
            })
            .collect()
    }

    #[test]
    fn verbatim_schemas_are_those_written_back_as_read() {
        let tool = |schema: &str| format!(r#"{{"name":"t","inputSchema":{schema}}}"#);
        let kept = [
            r#"{"type":"object","properties":{"a":{"type":"integer","minimum":-3,"maximum":18446744073709551615}}}"#,
            // The escapes `JSON.stringify` and `text::write_str` write.
            r#"{"description":"say \"hi\"\\\n\t\r\b\f \u0001\u001f é 😀 /","properties":{}}"#,
            // A property named `inputSchema`, noted too, does not take the tool's place.
            r#"{"type":"object","properties":{"inputSchema":{"type":"string"}}}"#,
        ];
        for schema in kept {
            let text = format!("[{},{}]", tool(schema), tool(schema));
            assert_eq!(verbatim(&text), [Some(schema.to_owned()), Some(schema.to_owned())], "{schema}");
        }
        let dropped = [
            r#"{"type": "object"}"#,
            "{\n\"type\":\"object\"}",
            r#"{"description":"a\/b"}"#,
            r#"{"description":"caf\u00e9"}"#,
            r#"{"description":"\u001F"}"#,
            r#"{"description":"\u000a"}"#,
            r#"{"minimum":0.5}"#,
            r#"{"minimum":1e3}"#,
            r#"{"minimum":-0}"#,
            r#"{"minimum":18446744073709551616}"#,
            "{}",
        ];
        let plain = r#"{"type":"object"}"#;
        for schema in dropped {
            // Only the loose one is left out; the tools after it are still found.
            let text = format!("[{},{},{}]", tool(plain), tool(schema), tool(plain));
            assert_eq!(verbatim(&text), [Some(plain.to_owned()), None, Some(plain.to_owned())], "{schema}");
        }
        // Whitespace around the schema is not part of it.
        assert_eq!(verbatim(&format!("[{{\"name\":\"t\",\"inputSchema\" :  {plain} }}]")), [Some(plain.to_owned())]);
        // Only a tool's own schema: not one deeper than a tool list in `{result: {tools}}`.
        let deep = format!(r#"{{"x":{{"y":{{"z":[{}]}}}}}}"#, tool(plain));
        let arena = Bump::new();
        assert!(read_measured(&deep, &arena).unwrap().2.is_empty());
    }

    /// The figures of a text: with unique keys, `json_size`'s over what serde_json reads; plus
    /// `$ref` keys and duplicates.
    fn figures(text: &str) -> Figures {
        let arena = Bump::new();
        let (node, figures, _) = read_measured(text, &arena).expect(text);
        let size = crate::model::json_size(&node.to_value());
        if figures.unique {
            assert_eq!((figures.nodes, figures.depth, figures.longest_string), (size.nodes, size.depth, size.longest_string), "{text:?}");
        }
        figures
    }

    #[test]
    fn schema_notes_say_which_schemas_hold_a_ref_key() {
        let schemas = [
            (r##"{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{}}}"##, true),
            (r#"{"type":"object","properties":{"a":{"type":"string","default":"$ref"}}}"#, false),
            (r##"{"anyOf":[{"type":"null"},{"\u0024ref":"#/x"}]}"##, true),
            (r#"{"type":"object", "properties":{"$refs":{"enum":["$ref"]}}}"#, false),
            // A property named `inputSchema` is noted before the tool's own schema.
            (r##"{"type":"object","properties":{"inputSchema":{"type":"object","properties":{"x":{"$ref":"#"}}}}}"##, true),
            (r#"{"type":"object","properties":{"inputSchema":{"type":"object"}}}"#, false),
        ];
        let list = format!("[{}]", schemas.map(|(s, _)| format!(r#"{{"name":"t","inputSchema":{s}}}"#)).join(","));
        let arena = Bump::new();
        let (node, figures, found) = read_measured(&list, &arena).unwrap();
        assert!(figures.refs);
        let Node::Arr(tools) = node else { panic!() };
        let (mut next, mut objects) = (0, Vec::new());
        for (tool, (text, refs)) in tools.iter().zip(schemas) {
            let schema = tool.get("inputSchema").unwrap();
            let note = SchemaNote::of(schema, &found, &mut next).expect(text);
            assert_eq!(note.refs, refs, "{text}");
            assert_eq!(note.refs, schema.has_ref_key(), "{text}");
            // Objects in arrays and in `$defs` count, the schema itself too.
            assert_eq!(note.objects, super::super::refs::count_nodes(schema, 0), "{text}");
            objects.push(note.objects);
        }
        assert_eq!(objects, [5, 3, 3, 3, 5, 3]);
    }

    #[test]
    fn figures_of_the_whole_text() {
        let plain = Figures { nodes: 1, depth: 0, longest_string: 0, refs: false, unique: true };
        assert_eq!(figures("7"), plain);
        assert_eq!(figures("\"abc\""), Figures { longest_string: 3, ..plain });
        assert_eq!(figures("[]"), Figures { depth: 1, ..plain });
        assert_eq!(figures(r#"[1,{"k":[true,"xy"]},{}]"#), Figures { nodes: 7, depth: 3, longest_string: 2, ..plain });
        // Escapes are counted unescaped, keys as strings.
        assert_eq!(figures(r#"{"\u00e9\u00e9":"a\nb"}"#), Figures { nodes: 2, depth: 1, longest_string: 4, ..plain });
        assert_eq!(figures(r#"{"longer key":"v"}"#).longest_string, 10);
        // `$ref` as a key only, escaped or not, at any depth.
        assert!(!figures(r#"{"a":"$ref","b":["$ref"]}"#).refs);
        assert!(figures(r##"[{"p":{"q":{"$ref":"#/x"}}}]"##).refs);
        assert!(figures(r#"{"\u0024ref":1}"#).refs);
        assert!(!figures(r#"{"$refs":1,"$re":2}"#).refs);
        // Duplicate keys anywhere, also past the first eight keys of an object and through escapes.
        assert!(!figures(r#"[{"a":1},{"b":{"c":1,"c":2}}]"#).unique);
        let many = (0..12).map(|i| format!("\"k{i}\":{i}")).collect::<Vec<_>>().join(",");
        assert!(figures(&format!("{{{many}}}")).unique);
        assert!(!figures(&format!("{{{many},\"k3\":0}}")).unique);
        assert!(!figures(r#"{"a":1,"\u0061":2}"#).unique);
        assert!(figures(r#"{"a":{"a":{"a":1}}}"#).unique);
    }

    #[test]
    fn nesting_stops_where_serde_json_stops() {
        for n in 120..135 {
            let text = format!("{}{}", "[".repeat(n), "]".repeat(n));
            assert_eq!(read(&text, &Bump::new()).is_some(), serde_json::from_str::<Value>(&text).is_ok(), "{n}");
            let text = format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
            assert_eq!(read(&text, &Bump::new()).is_some(), serde_json::from_str::<Value>(&text).is_ok(), "{n}");
        }
    }

    /// Every text of the corpus reads; so does each of its prefixes and mutations that serde_json reads.
    #[test]
    fn corpus_and_mutations() {
        let shared = std::env::var("TOOLWIRE_SHARED").unwrap_or_else(|_| format!("{}/../shared", env!("CARGO_MANIFEST_DIR")));
        let mut texts = Vec::new();
        for f in std::fs::read_dir(format!("{shared}/corpus/tools")).expect("corpus") {
            let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
            assert!(same(&text), "a corpus file was not read");
            figures(&text);
            texts.push(text);
        }
        // Deterministic mutations of one small file: each byte replaced by a few others.
        let text = texts.iter().min_by_key(|t| t.len()).unwrap();
        let text = &text[..text.len().min(3000)];
        for (i, _) in text.char_indices().step_by(3) {
            for with in ["", "\"", "\\", ",", "}", "]", "0", "-", "\\u", "e", " "] {
                let mutated = format!("{}{with}{}", &text[..i], &text[i + text[i..].chars().next().map_or(0, char::len_utf8)..]);
                same(&mutated);
            }
        }
    }
}
