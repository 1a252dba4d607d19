//! MCP model types, in the style of the official Rust SDK (rmcp): camelCase on the wire,
//! optional fields absent when unset, `_meta` kept, and every unknown field preserved in
//! `extra` so that nothing a server sent is dropped on the way through.
//!
//! Reading is lenient where real servers are sloppy (see `../shared/corpus`): an `inputSchema`
//! of any JSON type is accepted here and normalised later by [`crate::schema`]; a hint that is
//! not a boolean, or a title that is not a string, is kept verbatim in `extra` instead of
//! failing the whole tool. The readers are written by hand over an owned `Value`: fields are
//! moved out, never copied (serde's `flatten` would buffer every schema twice).

use serde_json::{Map, Value};

use crate::error::{Error, ErrorCode, Result};
use crate::text::Owned as _;

/// A JSON object, as used for schemas and arguments.
pub type JsonObject = Map<String, Value>;

/// A JSON object of `entries`, each value moved in. (`json!` copies every value it is given
/// through serde's serializer: a deep copy of a whole schema or tool list, where this moves it.)
#[inline]
pub(crate) fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    // `object_of` moves every value out (leaving nulls, which own nothing): nothing to drop.
    object_of(&mut *std::mem::ManuallyDrop::new(entries))
}

/// [`object`] for any number of entries: one copy, not one per `N`. The values are moved out.
#[inline(never)]
fn object_of(entries: &mut [(&str, Value)]) -> Value {
    let mut m = Map::with_capacity(entries.len());
    for (k, v) in entries {
        m.insert((*k).owned(), std::mem::take(v));
    }
    Value::Object(m)
}

/// Sorts `(usize, usize)` pairs in ascending order: the crate's sorts of (key, index) pairs, which
/// sort by key stably, and its stable sorts of other things by key through such pairs. A heapsort
/// written out (pairs that compare equal are the same, so any sort gives the same order): core's
/// sort for this one type, with its sorting networks, was 7 KB of wasm, and each stable sort of
/// another type 3.5 KB more; the crate sorts few items with it, none on a conversion path.
pub(crate) fn sort_pairs(pairs: &mut [(usize, usize)]) {
    heapsort(pairs);
}

/// Sorts `v` in ascending order, not stably: where no two items compare equal, or those that do
/// are the same to the caller (equal strings), the order of every sort. Core's sorts are 3.5 to
/// 7 KB of wasm for each type they sort; this is one small function for each.
pub(crate) fn heapsort<T: Ord>(v: &mut [T]) {
    fn sift_down<T: Ord>(v: &mut [T], mut root: usize) {
        loop {
            let mut child = 2 * root + 1;
            if child >= v.len() {
                return;
            }
            if child + 1 < v.len() && v[child] < v[child + 1] {
                child += 1;
            }
            if v[root] >= v[child] {
                return;
            }
            v.swap(root, child);
            root = child;
        }
    }
    for root in (0..v.len() / 2).rev() {
        sift_down(v, root);
    }
    for end in (1..v.len()).rev() {
        v.swap(0, end);
        sift_down(&mut v[..end], 0);
    }
}

/// `items` in the order of a stable sort by `key`, through [`sort_pairs`].
pub(crate) fn sorted_by_key<T>(items: Vec<T>, key: impl Fn(&T) -> usize) -> Vec<T> {
    let mut order: Vec<(usize, usize)> = items.iter().map(key).zip(0..).collect();
    sort_pairs(&mut order);
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    order.iter().filter_map(|&(_, i)| slots[i].take()).collect()
}

/// `RefCell::borrow` and `borrow_mut` through a function of the crate's own: the panic of a
/// borrow that clashes then names the one place here, not each of the crate's 220 calls in the
/// client, the hub and OAuth, each of which had its own 16-byte location in the module's data.
pub(crate) trait Borrowed<T> {
    /// `self.borrow()`.
    fn borrowed(&self) -> std::cell::Ref<'_, T>;
    /// `self.borrow_mut()`.
    fn borrowed_mut(&self) -> std::cell::RefMut<'_, T>;
}

impl<T> Borrowed<T> for std::cell::RefCell<T> {
    #[inline(always)]
    fn borrowed(&self) -> std::cell::Ref<'_, T> {
        self.borrow()
    }

    #[inline(always)]
    fn borrowed_mut(&self) -> std::cell::RefMut<'_, T> {
        self.borrow_mut()
    }
}

/// `insert` of a key given as `&str`, out of line: the key's allocation and copy, and the drop of
/// any value it replaces, are written once here instead of at each of the crate's calls.
pub(crate) trait Put {
    /// `self.insert(key.to_owned(), value)`, the value it replaces dropped.
    fn put(&mut self, key: &str, value: Value);
}

impl Put for JsonObject {
    #[inline(never)]
    fn put(&mut self, key: &str, value: Value) {
        self.insert(key.owned(), value);
    }
}

/// Names for membership tests (a `required` list's, an object's keys): the names in a list while
/// they are few, which a scan finds fastest, and in a hash set once there are more than
/// [`NameSet::FEW`], so that a list of thousands is not scanned once for each name.
#[derive(Debug, Default)]
pub(crate) struct NameSet<'a> {
    few: Vec<&'a str>,
    many: Option<std::collections::HashSet<&'a str>>,
}

impl<'a> NameSet<'a> {
    /// How many names are scanned before a set is built.
    pub(crate) const FEW: usize = 16;

    /// The names `names` holds.
    pub(crate) fn of(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut set = Self::default();
        for n in names {
            set.insert(n);
        }
        set
    }

    /// Whether it holds `name`.
    pub(crate) fn contains(&self, name: &str) -> bool {
        #[cfg(test)]
        count_steps(if self.many.is_some() { 1 } else { self.few.len() });
        match &self.many {
            Some(set) => set.contains(name),
            None => self.few.contains(&name),
        }
    }

    /// Adds `name`: `false` when it held it already.
    pub(crate) fn insert(&mut self, name: &'a str) -> bool {
        #[cfg(test)]
        NAME_STEPS.with(|s| s.set(s.get() + 1));
        if let Some(set) = &mut self.many {
            return set.insert(name);
        }
        if self.few.contains(&name) {
            return false;
        }
        self.few.push(name);
        if self.few.len() > Self::FEW {
            self.many = Some(self.few.drain(..).collect());
        }
        true
    }
}

/// The positions of names in a list (an object's property names, a list of new names), for
/// looking names up in it: the names scanned while they are [`NameSet::FEW`] or fewer, and a
/// hash map of them once there are more, so that a list of thousands is not scanned once for
/// each name looked up. A name listed twice is at its first position, as a scan finds it.
#[derive(Debug, Default)]
pub(crate) struct NamePositions<'a> {
    few: Vec<&'a str>,
    many: Option<std::collections::HashMap<&'a str, usize>>,
    len: usize,
}

impl<'a> NamePositions<'a> {
    /// The positions of `names`, the first at 0.
    pub(crate) fn of(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut positions = Self::default();
        for n in names {
            positions.push(n);
        }
        positions
    }

    /// Where `name` is first.
    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        #[cfg(test)]
        count_steps(if self.many.is_some() { 1 } else { self.few.len() });
        match &self.many {
            Some(map) => map.get(name).copied(),
            None => self.few.iter().position(|n| *n == name),
        }
    }

    /// Adds `name` at the end of the list.
    pub(crate) fn push(&mut self, name: &'a str) {
        #[cfg(test)]
        count_steps(1);
        match &mut self.many {
            Some(map) => {
                map.entry(name).or_insert(self.len);
            }
            None => {
                self.few.push(name);
                if self.few.len() > NameSet::FEW {
                    let mut map = std::collections::HashMap::with_capacity(2 * self.few.len());
                    for (i, n) in self.few.drain(..).enumerate() {
                        map.entry(n).or_insert(i);
                    }
                    self.many = Some(map);
                }
            }
        }
        self.len += 1;
    }
}

/// What has a name to compare in a list of names ([`add_names`]): a string, or a JSON value that
/// is one.
pub(crate) trait AsName: Clone + PartialEq {
    /// The name, when it is one.
    fn as_name(&self) -> Option<&str>;
}

impl AsName for String {
    fn as_name(&self) -> Option<&str> {
        Some(self)
    }
}

impl AsName for Value {
    fn as_name(&self) -> Option<&str> {
        self.as_str()
    }
}

/// Adds to `list` each of `more` that it does not hold yet (a `required` list joined with
/// another's), in order: names through a [`NameSet`] when the lists are long, what is no name
/// by equality.
pub(crate) fn add_names<T: AsName>(list: &mut Vec<T>, more: &[T]) {
    if list.len() + more.len() <= NameSet::FEW {
        for x in more {
            if !list.contains(x) {
                list.push(x.clone());
            }
        }
        return;
    }
    let added: Vec<T> = {
        let mut seen = NameSet::of(list.iter().filter_map(AsName::as_name));
        let mut others: Vec<&T> = Vec::new();
        more.iter()
            .filter(|x| match x.as_name() {
                Some(n) => seen.insert(n),
                None if list.contains(x) || others.contains(x) => false,
                None => {
                    others.push(x);
                    true
                }
            })
            .cloned()
            .collect()
    };
    list.extend(added);
}

/// A list of names that grows by others joined to it (a `required` list and its `allOf`
/// branches'), each name once, in order: the list scanned while short, and once it holds more
/// than [`NameSet::FEW`] names, a set of them built once and kept, so that joining thousands of
/// lists one after another looks each name up once instead of rebuilding a set per list (as
/// [`add_names`] does, for one join). The list is only grown through [`NameIndex::add`].
#[derive(Debug, Default)]
pub(crate) struct NameIndex {
    seen: Option<std::collections::HashSet<String>>,
}

impl NameIndex {
    /// Adds to `list` each of `more` that it does not hold yet, in order; what is no name by
    /// equality.
    pub(crate) fn add<T: AsName>(&mut self, list: &mut Vec<T>, more: impl IntoIterator<Item = T>) {
        for x in more {
            let new = match (x.as_name(), &mut self.seen) {
                (Some(n), Some(seen)) => {
                    #[cfg(test)]
                    NAME_STEPS.with(|s| s.set(s.get() + 1));
                    !seen.contains(n) && seen.insert(n.owned())
                }
                (Some(n), None) if list.len() >= NameSet::FEW => {
                    let mut seen: std::collections::HashSet<String> = list.iter().filter_map(|x| x.as_name().map(str::to_owned)).collect();
                    #[cfg(test)]
                    NAME_STEPS.with(|s| s.set(s.get() + seen.len() + 1));
                    let new = seen.insert(n.owned());
                    self.seen = Some(seen);
                    new
                }
                _ => !list.contains(&x),
            };
            if new {
                list.push(x);
            }
        }
    }
}

/// Whether a text that grows at one end holds a string, for descriptions joined one after
/// another, each only where the text does not hold it yet. The first [`Holds::SCANS`] questions
/// read the text ([`str::contains`]: for a few joins as cheap as an index, without its memory);
/// the next are asked of a [`Substrings`] of the text, built then, each in the length of the
/// string asked rather than of the text, while the text is at most [`Holds::MAX_INDEXED`] bytes
/// (the index takes some 100 bytes per byte of text). A longer text is read at each question: in
/// proportion to its length per join, never past wasm32's memory.
#[derive(Debug, Default)]
pub(crate) struct Holds {
    asked: u32,
    index: Option<Substrings>,
}

impl Holds {
    const SCANS: u32 = 8;
    pub(crate) const MAX_INDEXED: usize = 1 << 20;

    /// Whether the text holds `needle`: `text` gives it when it is read, `len` is its length in
    /// bytes. `reversed`: the text grows at its start (the index is of its bytes in reverse).
    pub(crate) fn holds<'t>(&mut self, len: usize, text: impl FnOnce() -> std::borrow::Cow<'t, str>, needle: &str, reversed: bool) -> bool {
        if self.index.is_none() && self.asked >= Self::SCANS && len <= Self::MAX_INDEXED {
            let mut index = Substrings::default();
            index.extend(text().as_bytes(), reversed);
            let held = index.contains(needle.as_bytes(), reversed);
            self.index = Some(index);
            return held;
        }
        self.asked = self.asked.saturating_add(1);
        match &self.index {
            Some(index) => index.contains(needle.as_bytes(), reversed),
            None => text().contains(needle),
        }
    }

    /// `bytes` joined to the text (at its end; at its start when `reversed`, which reads them
    /// last first), now `len` bytes long.
    pub(crate) fn extend(&mut self, bytes: &[u8], reversed: bool, len: usize) {
        if len > Self::MAX_INDEXED {
            self.index = None;
        } else if let Some(index) = &mut self.index {
            index.extend(bytes, reversed);
        }
    }
}

/// Whether a text that grows at its end holds a string: a suffix automaton of the text's
/// bytes, built in time and space in proportion to the text, each question read in the length
/// of the string asked of it, not of the text. For descriptions joined one after another, where
/// [`str::contains`] on the text so far would read it again at each join.
#[derive(Debug)]
pub(crate) struct Substrings {
    states: Vec<SuffixState>,
    last: u32,
}

/// A state of [`Substrings`]: the longest of the texts it ends, its suffix link
/// ([`Substrings::NONE`] for the first), and its edges by byte.
type SuffixState = (u32, u32, Vec<(u8, u32)>);

impl Default for Substrings {
    fn default() -> Self {
        Substrings { states: vec![(0, Self::NONE, Vec::new())], last: 0 }
    }
}

impl Substrings {
    const NONE: u32 = u32::MAX;

    fn edge(&self, state: u32, byte: u8) -> Option<u32> {
        self.states[state as usize].2.iter().find(|e| e.0 == byte).map(|e| e.1)
    }

    /// Adds `bytes` at the end of the text, the last one first when `reversed`.
    pub(crate) fn extend(&mut self, bytes: &[u8], reversed: bool) {
        for i in 0..bytes.len() {
            let b = bytes[if reversed { bytes.len() - 1 - i } else { i }];
            #[cfg(test)]
            NAME_STEPS.with(|s| s.set(s.get() + 1));
            let cur = self.states.len() as u32;
            self.states.push((self.states[self.last as usize].0 + 1, 0, Vec::new()));
            let mut p = self.last;
            while p != Self::NONE && self.edge(p, b).is_none() {
                self.states[p as usize].2.push((b, cur));
                p = self.states[p as usize].1;
            }
            if let Some(q) = (p != Self::NONE).then(|| self.edge(p, b)).flatten() {
                if self.states[p as usize].0 + 1 == self.states[q as usize].0 {
                    self.states[cur as usize].1 = q;
                } else {
                    let clone = self.states.len() as u32;
                    let (_, link, edges) = self.states[q as usize].clone();
                    self.states.push((self.states[p as usize].0 + 1, link, edges));
                    while p != Self::NONE && self.edge(p, b) == Some(q) {
                        self.states[p as usize].2.iter_mut().filter(|e| e.0 == b).for_each(|e| e.1 = clone);
                        p = self.states[p as usize].1;
                    }
                    self.states[q as usize].1 = clone;
                    self.states[cur as usize].1 = clone;
                }
            }
            self.last = cur;
        }
    }

    /// Whether the text holds `bytes` in a row (`bytes` read the last first when `reversed`).
    pub(crate) fn contains(&self, bytes: &[u8], reversed: bool) -> bool {
        let mut state = 0;
        for i in 0..bytes.len() {
            #[cfg(test)]
            NAME_STEPS.with(|s| s.set(s.get() + 1));
            match self.edge(state, bytes[if reversed { bytes.len() - 1 - i } else { i }]) {
                Some(next) => state = next,
                None => return false,
            }
        }
        true
    }
}

#[cfg(test)]
thread_local! {
    /// Names put in a [`NameSet`], [`NamePositions`] or [`NameIndex`] on this thread, names
    /// compared or hashed in looking one up ([`count_steps`]), strings of the borrowed tree read
    /// for comparing (`fast::Node::as_str`), members and chain nodes read to look references up
    /// (`fast::refs::Pointers`), references of the expansion stack read for its recursions
    /// (`schema::refs::Unrolling`) and bytes read by [`Substrings`]: the work of joining or
    /// checking lists of names, for tests that it grows in proportion to the names.
    pub(crate) static NAME_STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Adds `n` to [`NAME_STEPS`]: names compared in a scan, or looked up by hash.
#[cfg(test)]
pub(crate) fn count_steps(n: usize) {
    NAME_STEPS.with(|s| s.set(s.get() + n));
}

/// A JSON string of `s`, out of line: `json!("...")` and `Value::from("...")` copy the text at
/// each call.
#[inline(never)]
pub(crate) fn string(s: &str) -> Value {
    Value::String(s.owned())
}

/// Keyword lookups for the schema passes, which ask each node for a dozen keywords it mostly
/// does not have. A [`JsonObject`] hashes the key for every lookup (SipHash, through
/// serde_json's map); schema nodes hold a handful of keys, and comparing those is cheaper.
/// Larger maps are looked up by hash as before. [`Take`] is the matching removal.
pub(crate) trait Keyed {
    /// Whether `key` is present.
    fn has(&self, key: &str) -> bool;
    /// The value at `key`.
    fn find(&self, key: &str) -> Option<&Value>;
    /// The value at `key`, mutably.
    fn find_mut(&mut self, key: &str) -> Option<&mut Value>;
}

/// Up to this many keys a lookup compares keys instead of hashing.
const SCAN: usize = 16;

impl Keyed for JsonObject {
    #[inline]
    fn has(&self, key: &str) -> bool {
        if self.len() <= SCAN {
            self.keys().any(|k| k == key)
        } else {
            self.contains_key(key)
        }
    }
    #[inline]
    fn find(&self, key: &str) -> Option<&Value> {
        if self.len() <= SCAN {
            self.iter().find_map(|(k, v)| (k == key).then_some(v))
        } else {
            self.get(key)
        }
    }
    #[inline]
    fn find_mut(&mut self, key: &str) -> Option<&mut Value> {
        if self.len() <= SCAN {
            self.iter_mut().find_map(|(k, v)| (k == key).then_some(v))
        } else {
            self.get_mut(key)
        }
    }
}

impl Keyed for Value {
    #[inline]
    fn has(&self, key: &str) -> bool {
        self.as_object().is_some_and(|o| o.has(key))
    }
    #[inline]
    fn find(&self, key: &str) -> Option<&Value> {
        self.as_object().and_then(|o| o.find(key))
    }
    #[inline]
    fn find_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.as_object_mut().and_then(|o| o.find_mut(key))
    }
}

/// [`Keyed`] removal: `Map::remove` (which hashes) only when the key is there.
pub(crate) trait Take {
    /// Removes `key` as `Map::remove` does, returning its value.
    fn take(&mut self, key: &str) -> Option<Value>;
}

impl Take for JsonObject {
    #[inline]
    fn take(&mut self, key: &str) -> Option<Value> {
        if self.len() <= SCAN && !self.keys().any(|k| k == key) {
            return None;
        }
        self.remove(key)
    }
}

/// Takes a string field; anything else stays in `o` (so it lands in `extra`).
fn take_string(o: &mut JsonObject, key: &str) -> Option<String> {
    match o.find(key) {
        Some(Value::String(_)) => match o.remove(key) {
            Some(Value::String(s)) => Some(s),
            _ => None,
        },
        Some(Value::Null) => {
            o.remove(key);
            None
        }
        _ => None,
    }
}

/// Takes a boolean field; anything else (the string `"false"` too) stays in `o` and counts as not
/// given: a hint's default is the safe side (a permission policy asks), where a malformed one read
/// as what it seems to say would let a call through unasked.
fn take_bool(o: &mut JsonObject, key: &str) -> Option<bool> {
    let Value::Bool(b) = *o.find(key)? else { return None };
    o.remove(key);
    Some(b)
}

/// Whether a result's `isError` says the call failed. MCP makes it a boolean; of any other value
/// (a server's `"true"`, `1`, `"yes"`) only what plainly says no is no error: `false`, `null`,
/// `0`, `""` and the string `"false"` (in any case, spaces around it aside). Anything else is an
/// error, so that a failed call is never given to the model as one that succeeded.
pub(crate) fn is_error_value(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Null => false,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !(s.trim().is_empty() || s.trim().eq_ignore_ascii_case("false")),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// Takes a result's `isError` ([`is_error_value`]); `None` when absent or `null`.
fn take_is_error(o: &mut JsonObject) -> Option<bool> {
    match o.take("isError")? {
        Value::Null => None,
        v => Some(is_error_value(&v)),
    }
}

/// An MCP tool definition (`tools/list` entry).
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// The tool's name on its server.
    pub name: String,
    /// Human-readable title.
    pub title: Option<String>,
    /// Description for the model.
    pub description: Option<String>,
    /// JSON Schema of the arguments. `Value::Null` when absent.
    pub input_schema: Value,
    /// JSON Schema of `structuredContent`.
    pub output_schema: Option<Value>,
    /// Behaviour hints. Hints, not guarantees: never a reason to trust a tool.
    pub annotations: Option<ToolAnnotations>,
    /// The server this tool comes from, as MCP client apps attach it (not part of MCP itself).
    pub server_name: Option<String>,
    /// Protocol metadata.
    pub meta: Option<Value>,
    /// Every other field, kept verbatim (`icons`, `execution`, vendor keys...).
    pub extra: JsonObject,
}

/// A key other than `inputSchema` that spells it with another case or with `_`/`-` between
/// letters (`input-schema`, `InputSchema`). Compared byte by byte: the check runs on every key
/// of every tool, `description` among them, so it allocates nothing.
pub(crate) fn spells_input_schema(k: &str) -> bool {
    k != "inputSchema" && (11..=13).contains(&k.len()) && {
        let mut letters = k.bytes().filter(|b| !matches!(b, b'_' | b'-'));
        b"inputschema".iter().all(|want| letters.next().is_some_and(|b| b.eq_ignore_ascii_case(want))) && letters.next().is_none()
    }
}

/// Why a tool's schema cannot be read where it is: a tool of another format (a provider's
/// tool given back), a schema under another key (`input_schema`, `parameters`), or a schema as
/// JSON text. Read as no schema, such a tool would take no parameters without a word.
pub(crate) fn misplaced_schema(o: &Map<String, Value>) -> Option<String> {
    match o.get("inputSchema") {
        // JSON text of a schema (other text is no schema, and is reported as such).
        Some(Value::String(s)) if s.trim_start().starts_with('{') => {
            return Some("inputSchema is a string of JSON text: JSON.parse it, and pass the schema object".owned())
        }
        Some(_) => return None,
        None => {}
    }
    if o.get("type").and_then(Value::as_str) == Some("function") && o.get("function").is_some_and(Value::is_object) {
        return Some("this looks like a tool in OpenAI's format ({type: \"function\", function: {...}}), not an MCP tool: pass the MCP tools ({name, description, inputSchema}) the conversion started from".owned());
    }
    if o.get("toolSpec").is_some_and(Value::is_object) {
        return Some("this looks like a tool in Bedrock's format ({toolSpec: {...}}), not an MCP tool: pass the MCP tools ({name, description, inputSchema})".owned());
    }
    if o.get("functionDeclarations").is_some() {
        return Some("this looks like Gemini's tool ({functionDeclarations: [...]}), not an MCP tool: pass the MCP tools ({name, description, inputSchema})".owned());
    }
    let found = |k: &str| o.get(k).is_some_and(|v| v.is_object() || v.is_string());
    if found("input_schema") {
        return Some("found input_schema (Anthropic's name, or a tool in Anthropic's format): MCP names it inputSchema".owned());
    }
    if found("parameters") || found("parametersJsonSchema") {
        let k = if found("parameters") { "parameters" } else { "parametersJsonSchema" };
        return Some(format!("found {k} (a provider's name for the schema): MCP names it inputSchema"));
    }
    if let Some(k) = o.keys().find(|k| spells_input_schema(k)) {
        return Some(format!("found {}: MCP names it inputSchema", crate::text::quote(k)));
    }
    None
}

impl Tool {
    /// Reads one tool, with an error naming the tool (or its index) on failure.
    pub fn from_value(value: Value, index: usize) -> Result<Self> {
        let mut o = match value {
            Value::Object(o) => o,
            other => {
                return Err(Error::new(
                    ErrorCode::InvalidTool,
                    format!("tool at index {index} must be an object, got {}", json_type(&other)),
                ))
            }
        };
        if let Some(hint) = misplaced_schema(&o) {
            let name = o.get("name").and_then(Value::as_str).map(str::to_owned);
            let at = match &name {
                Some(n) => format!("tool {}", crate::text::quote(n)),
                None => format!("tool at index {index}"),
            };
            let e = Error::new(ErrorCode::InvalidTool, format!("{at}: {hint}"));
            return Err(match name {
                Some(n) => e.with_tool(&n),
                None => e,
            });
        }
        // A tool without a name is told by its index, and its server where it has one (in the
        // tools of several servers, an index alone is hard to trace back).
        let server = o.get("serverName").and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
        let nameless = |what: &str| {
            let at = match &server {
                Some(s) => format!("tool at index {index} (server {})", crate::text::quote(s)),
                None => format!("tool at index {index}"),
            };
            let e = Error::new(ErrorCode::InvalidTool, format!("{at} {what}"));
            match &server {
                Some(s) => e.with_detail("server", s.as_str()),
                None => e,
            }
        };
        let name = match o.take("name") {
            Some(Value::String(s)) if !s.is_empty() => s,
            Some(Value::String(_)) => return Err(nameless("has an empty name")),
            Some(_) => return Err(nameless("has a \"name\" that is not a string")),
            None => return Err(nameless("has no \"name\"")),
        };
        let annotations = match o.find("annotations") {
            Some(Value::Object(_)) => match o.remove("annotations") {
                Some(a) => ToolAnnotations::from_value(a),
                None => None,
            },
            _ => None,
        };
        // The server a tool is routed to: one that is not text is an error, never a guess.
        let server_name = match o.find("serverName") {
            Some(Value::String(_) | Value::Null) | None => take_string(&mut o, "serverName"),
            Some(other) => {
                let (got, name) = (json_type(other), name.clone());
                return Err(Error::new(ErrorCode::InvalidTool, format!("tool \"{name}\": \"serverName\" must be a string, got {got}")).with_tool(&name));
            }
        };
        Ok(Self {
            name,
            title: take_string(&mut o, "title"),
            description: take_string(&mut o, "description"),
            input_schema: o.take("inputSchema").unwrap_or(Value::Null),
            output_schema: o.take("outputSchema"),
            annotations,
            server_name,
            meta: o.take("_meta"),
            extra: o,
        })
    }

    /// The text a provider should see as the description: the description, else the title.
    pub fn description_text(&self) -> &str {
        description_text(self.description.as_deref(), self.title.as_deref())
    }
}

/// The description of a tool with this `description` and `title`: the description, else the
/// title, else nothing.
pub(crate) fn description_text<'s>(description: Option<&'s str>, title: Option<&'s str>) -> &'s str {
    match (description, title) {
        (Some(d), _) if !blank(d) => d,
        (_, Some(t)) if !blank(t) => t,
        _ => "",
    }
}

/// `s.trim().is_empty()`, without `trim`'s searchers (some 800 bytes of wasm for a conversion's
/// first call to compile, see bench/README.md, "Cold start").
fn blank(s: &str) -> bool {
    // Most text starts with a printable ASCII character.
    !s.as_bytes().first().is_some_and(u8::is_ascii_graphic) && s.chars().all(char::is_whitespace)
}

/// Tool behaviour hints (MCP `ToolAnnotations`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolAnnotations {
    /// Human-readable title.
    pub title: Option<String>,
    /// The tool does not modify its environment.
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates.
    pub destructive_hint: Option<bool>,
    /// Repeated calls with the same arguments have no additional effect.
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities.
    pub open_world_hint: Option<bool>,
    /// Every other field, kept verbatim.
    pub extra: JsonObject,
}

impl ToolAnnotations {
    /// Reads annotations; `None` unless `v` is an object.
    pub fn from_value(v: Value) -> Option<Self> {
        let Value::Object(mut o) = v else { return None };
        Some(Self {
            title: take_string(&mut o, "title"),
            read_only_hint: take_bool(&mut o, "readOnlyHint"),
            destructive_hint: take_bool(&mut o, "destructiveHint"),
            idempotent_hint: take_bool(&mut o, "idempotentHint"),
            open_world_hint: take_bool(&mut o, "openWorldHint"),
            extra: o,
        })
    }
}

/// One content block of a tool result.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// `{type:"text", text}`
    Text(TextContent),
    /// `{type:"image", data, mimeType}`
    Image(MediaContent),
    /// `{type:"audio", data, mimeType}`
    Audio(MediaContent),
    /// `{type:"resource_link", uri, name, ...}`
    ResourceLink(ResourceLink),
    /// `{type:"resource", resource:{uri, mimeType?, text|blob}}`
    Resource(EmbeddedResource),
    /// A block of a type this version does not know (or a malformed one), kept as raw JSON.
    Unknown(Value),
}

/// Text content.
#[derive(Debug, Clone, PartialEq)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Every other field (`annotations`, `_meta`...).
    pub extra: JsonObject,
}

/// Image or audio content: base64 data and a MIME type.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaContent {
    /// Base64 data.
    pub data: String,
    /// MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// Every other field.
    pub extra: JsonObject,
}

/// A link to a resource.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceLink {
    /// Resource URI.
    pub uri: String,
    /// Resource name.
    pub name: String,
    /// Title.
    pub title: Option<String>,
    /// Description.
    pub description: Option<String>,
    /// MIME type.
    pub mime_type: Option<String>,
    /// Every other field.
    pub extra: JsonObject,
}

/// An embedded resource.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbeddedResource {
    /// The resource contents.
    pub resource: ResourceContents,
    /// Every other field.
    pub extra: JsonObject,
}

/// Contents of an embedded resource: text or base64 blob.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceContents {
    /// Resource URI.
    pub uri: String,
    /// MIME type.
    pub mime_type: Option<String>,
    /// Text contents.
    pub text: Option<String>,
    /// Base64 contents.
    pub blob: Option<String>,
    /// Every other field.
    pub extra: JsonObject,
}

impl ContentBlock {
    /// Reads one block; anything unrecognised or malformed becomes [`ContentBlock::Unknown`].
    pub fn from_value(value: Value) -> Self {
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        // `null` is no value, as a missing field is (an image is then read from its bytes). A
        // field of another type makes the block malformed: it is shown as JSON, never left out.
        let strings = |v: &Value, keys: &[&str]| keys.iter().all(|k| v.get(k).is_none_or(|v| v.is_string() || v.is_null()));
        let well_formed = match kind {
            "text" => value.get("text").is_some_and(Value::is_string),
            "image" | "audio" => strings(&value, &["data", "mimeType"]),
            "resource_link" => value.get("uri").is_some_and(Value::is_string) && strings(&value, &["name", "title", "description", "mimeType"]),
            "resource" => value.get("resource").is_some_and(|r| r.is_object() && strings(r, &["uri", "mimeType", "text", "blob"])),
            _ => false,
        };
        if !well_formed {
            return Self::Unknown(value);
        }
        let kind = kind.owned();
        let Value::Object(mut o) = value else { return Self::Unknown(Value::Null) };
        o.remove("type");
        let req = |o: &mut JsonObject, k: &str| take_string(o, k).unwrap_or_default();
        match kind.as_str() {
            "text" => Self::Text(TextContent { text: req(&mut o, "text"), extra: o }),
            "image" | "audio" => {
                let m = MediaContent { data: req(&mut o, "data"), mime_type: req(&mut o, "mimeType"), extra: o };
                if kind == "image" {
                    Self::Image(m)
                } else {
                    Self::Audio(m)
                }
            }
            "resource_link" => Self::ResourceLink(ResourceLink {
                uri: req(&mut o, "uri"),
                name: req(&mut o, "name"),
                title: take_string(&mut o, "title"),
                description: take_string(&mut o, "description"),
                mime_type: take_string(&mut o, "mimeType"),
                extra: o,
            }),
            _ => {
                let Some(Value::Object(mut r)) = o.remove("resource") else { return Self::Unknown(Value::Object(o)) };
                let resource = ResourceContents {
                    uri: req(&mut r, "uri"),
                    mime_type: take_string(&mut r, "mimeType"),
                    text: take_string(&mut r, "text"),
                    blob: take_string(&mut r, "blob"),
                    extra: r,
                };
                Self::Resource(EmbeddedResource { resource, extra: o })
            }
        }
    }
}

/// The result field that `item`, an item of a content array, has where a content block would
/// have a `type`: `content` (an array), `structuredContent` or `isError`; `None` for a block.
fn result_shaped(item: &Value) -> Option<&'static str> {
    let o = item.as_object().filter(|o| !o.contains_key("type"))?;
    if o.get("content").is_some_and(Value::is_array) {
        Some("content")
    } else if o.get("structuredContent").is_some_and(|v| !v.is_null()) {
        Some("structuredContent")
    } else if o.get("isError").is_some_and(Value::is_boolean) {
        Some("isError")
    } else {
        None
    }
}

/// The result of `tools/call`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallToolResult {
    /// Content blocks.
    pub content: Vec<ContentBlock>,
    /// Structured result (an object by 2025-11-25; any JSON value later).
    pub structured_content: Option<Value>,
    /// Whether the tool reported an execution error.
    pub is_error: Option<bool>,
    /// Protocol metadata.
    pub meta: Option<Value>,
    /// Every other field.
    pub extra: JsonObject,
}

impl CallToolResult {
    /// Reads a result, or a bare content array (as some clients pass it). A result handed on in
    /// a wrapper is unwrapped: the `{result, text, isError, ...}` of a hub's `callTool`, a JSON-RPC
    /// response `{jsonrpc, id, result}` (one with an `error` too is malformed: `INVALID_INPUT`);
    /// the wrapper's `isError: true` makes the result an error; so is the 2024-10-07 protocol's `{toolResult}` (its value
    /// as text). `{}` and `{_meta}` are results without output (the SDKs default `content` to
    /// `[]`); an object that is none of these, with neither `content` nor `structuredContent` (nor
    /// `isError`) but other keys, is `INVALID_INPUT`, not a result without output: it is something
    /// else.
    pub fn from_value(mut value: Value) -> Result<Self> {
        // A `content` or `structuredContent` of null is none (its other fields are then read as
        // those of a result without them).
        if let Value::Object(o) = &mut value {
            for key in ["content", "structuredContent"] {
                if o.get(key).is_some_and(Value::is_null) {
                    o.remove(key);
                }
            }
        }
        match value {
            Value::Array(items) => {
                // Blocks have a `type`; an item without one that has a result's fields is a
                // result: a list of results, given where one is taken, would be sent as
                // unknown blocks, and an error among them as a success.
                if let Some((i, key)) = items.iter().enumerate().find_map(|(i, item)| result_shaped(item).map(|key| (i, key))) {
                    return Err(Error::new(
                        ErrorCode::InvalidInput,
                        format!("expected a CallToolResult or a content array, got an array of results (its item {i} has `{key}` and no `type`): pass one result; toolResultMessages(calls, results, provider) takes one result per call"),
                    ));
                }
                Ok(Self { content: items.into_iter().map(ContentBlock::from_value).collect(), ..Self::default() })
            }
            Value::Object(mut o) if !o.contains_key("content") && !o.contains_key("structuredContent") => {
                // A wrapped content array (`{isError: true, result: [...]}`) too.
                let is_result = |v: &Value| v.is_array() || v.get("content").is_some() || v.get("structuredContent").is_some() || v.get("toolResult").is_some();
                if o.get("result").is_some_and(is_result) {
                    if o.contains_key("jsonrpc") && o.get("error").is_some_and(|e| !e.is_null()) {
                        return Err(Error::new(
                            ErrorCode::InvalidInput,
                            "a JSON-RPC response with both result and error is malformed (JSON-RPC 2.0 allows one): whether the call failed is unknown; pass its result or handle its error",
                        ));
                    }
                    // The wrapper's own `isError` holds: a failed call is never read as one that
                    // succeeded, whatever its result says.
                    let outer = take_is_error(&mut o);
                    let mut result = Self::from_value(o.remove("result").unwrap_or_default())?;
                    result.is_error = match (outer, result.is_error) {
                        (Some(true), _) | (_, Some(true)) => Some(true),
                        (outer, inner) => inner.or(outer),
                    };
                    return Ok(result);
                }
                if let Some(tool_result) = o.remove("toolResult") {
                    let text = match tool_result {
                        Value::String(s) => s,
                        other => crate::text::to_string(&other),
                    };
                    let content = vec![ContentBlock::Text(TextContent { text, extra: serde_json::Map::new() })];
                    return Ok(Self { content, is_error: take_is_error(&mut o), meta: o.remove("_meta"), extra: o, ..Self::default() });
                }
                // Without content but with nothing else either (`{}`, `{_meta}`): a result without
                // output, as the official SDKs read it (their schema defaults content to []).
                if o.get("isError").is_some_and(|v| !v.is_null()) || o.keys().all(|k| k == "_meta") {
                    let (is_error, meta) = (take_is_error(&mut o), o.remove("_meta"));
                    // Its other fields (`{isError: true, message: "..."}`) are all it says: written
                    // as their JSON, as a `toolResult`'s value is, not left out.
                    let content = if o.is_empty() {
                        Vec::new()
                    } else {
                        vec![ContentBlock::Text(TextContent { text: crate::text::to_string(&Value::Object(std::mem::take(&mut o))), extra: serde_json::Map::new() })]
                    };
                    return Ok(Self { content, is_error, meta, ..Self::default() });
                }
                let what = if o.get("error").is_some() && o.get("jsonrpc").is_some() {
                    "a JSON-RPC error response, not a result: the call failed (see its error)".owned()
                } else if o.get("task").is_some() {
                    "a task (the call runs as a task): pass the task's result (tasks/result) once it is done".owned()
                } else if let Some(name) = error_name(&o) {
                    // An error whose fields JSON keeps (toolwire's own, a `ToolwireError` from a
                    // `callTool` that rejected; the MCP SDK's `McpError`): the call failed.
                    return Err(error_as_result(&name, o.get("code")));
                } else {
                    let keys: Vec<&str> = o.keys().take(8).map(String::as_str).collect();
                    format!("an object without content (its keys: {}{})", keys.join(", "), if o.len() > 8 { ", ..." } else { "" })
                };
                Err(Error::new(
                    ErrorCode::InvalidInput,
                    format!("expected a CallToolResult ({{content: [...], structuredContent?, isError?}}), a content array, or a hub's callTool result; got {what}"),
                ))
            }
            Value::Object(mut o) => {
                let mut content = match o.remove("content") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(items)) => items.into_iter().map(ContentBlock::from_value).collect(),
                    Some(other) => {
                        return Err(Error::new(
                            ErrorCode::InvalidInput,
                            format!("CallToolResult.content must be an array, got {}", json_type(&other)),
                        ))
                    }
                };
                let structured_content = o.remove("structuredContent").filter(|v| !v.is_null());
                let (is_error, meta) = (take_is_error(&mut o), o.remove("_meta"));
                // Content that says nothing (`[]`, empty text) is as much none as a missing one:
                // the other fields (`{content: [], isError: true, message: "..."}`) are then all
                // the result says, written as their JSON in its place. A null field says nothing
                // (`meta: None`, where Python writes a result's fields by name).
                let says_nothing = content.iter().all(|b| matches!(b, ContentBlock::Text(t) if t.text.trim().is_empty()));
                if says_nothing && structured_content.is_none() && o.values().any(|v| !v.is_null()) {
                    let said: JsonObject = std::mem::take(&mut o).into_iter().filter(|(_, v)| !v.is_null()).collect();
                    content = vec![ContentBlock::Text(TextContent { text: crate::text::to_string(&Value::Object(said)), extra: serde_json::Map::new() })];
                }
                Ok(Self { content, structured_content, is_error, meta, extra: o })
            }
            // JSON text of a result (a body read as text): said how to pass it.
            Value::String(s) if matches!(s.trim_start().as_bytes().first(), Some(b'{' | b'[')) => Err(Error::new(
                ErrorCode::InvalidInput,
                "expected a CallToolResult object or a content array, got a string of JSON text: pass JSON.parse(text)",
            )),
            other => Err(Error::new(
                ErrorCode::InvalidInput,
                format!("expected a CallToolResult object or a content array, got {}", json_type(&other)),
            )),
        }
    }
}

/// The most items (array elements and object members) one JSON text may hold to be read:
/// 8,388,608, about 65 times the whole corpus of 34 servers (129,000 in 3.8 MB).
/// Reading an item costs up to about 180 bytes at its peak (a `serde_json::Value` and its
/// share of a vector growing by doubling), and wasm32 memory ends at 4 GiB: 64 MB of `[],`
/// (22 million items) ran out of it, and running out is a trap, not an error.
pub const MAX_JSON_ITEMS: usize = 1 << 23;

/// The deepest nesting of arrays and objects one JSON text may have to be read: a tool whose
/// schema is within [`crate::schema::Limits::DEPTH_CEILING`] levels nests at most 392 (three
/// JSON levels per schema level, `properties` -> name -> schema, and the tool's own), and a
/// tool list sits in two more. The reader recurses once per level, and in wasm on the JS
/// engine's stack: 400 levels take a fraction of what the schema walkers' 128 levels take
/// (tests/js/hostile.test.mjs reads them on half of V8's default stack).
pub const MAX_JSON_NESTING: usize = 400;

/// Reads JSON text into a `Value` as `serde_json::from_str` does (same values, same errors),
/// but stops with [`ReadError::TooManyItems`] past [`MAX_JSON_ITEMS`] array elements and
/// object members, before they could take all of wasm32's memory, and with
/// [`ReadError::TooDeep`] past [`MAX_JSON_NESTING`] levels of arrays and objects.
pub fn read_json(text: &str) -> std::result::Result<Value, ReadError> {
    read_json_with(text, MAX_JSON_ITEMS)
}

fn read_json_with(text: &str, max: usize) -> std::result::Result<Value, ReadError> {
    let mut items = Items { read: 0, max, nesting: 0 };
    let mut d = serde_json::Deserializer::from_str(text);
    // Bounded by `Items::enter` instead, past serde_json's 128.
    d.disable_recursion_limit();
    let read = serde::de::DeserializeSeed::deserialize(ValueSeed(&mut items), &mut d).and_then(|v| d.end().map(|()| v));
    // A read that ended past a bound is still past it (the counts are left where they failed).
    read.map_err(|e| match (items.read > max, items.nesting > MAX_JSON_NESTING) {
        (true, _) => ReadError::TooManyItems,
        (_, true) => ReadError::TooDeep(e),
        _ => ReadError::Json(e),
    })
}

/// Items read so far, and how many may be; the arrays and objects open.
#[derive(Debug)]
struct Items {
    read: usize,
    max: usize,
    nesting: usize,
}

impl Items {
    /// Counts one more item; past the maximum, an error that ends the read.
    fn count<E: serde::de::Error>(&mut self) -> std::result::Result<(), E> {
        self.read += 1;
        if self.read > self.max {
            return Err(E::custom("too many items"));
        }
        Ok(())
    }

    /// Opens an array or an object; past [`MAX_JSON_NESTING`], an error that ends the read.
    fn enter<E: serde::de::Error>(&mut self) -> std::result::Result<(), E> {
        self.nesting += 1;
        if self.nesting > MAX_JSON_NESTING {
            return Err(E::custom(format_args!("nesting deeper than {MAX_JSON_NESTING} levels")));
        }
        Ok(())
    }
}

/// Why [`read_json`] failed.
#[derive(Debug)]
pub enum ReadError {
    /// More than [`MAX_JSON_ITEMS`] items.
    TooManyItems,
    /// Arrays and objects nested past [`MAX_JSON_NESTING`] (the error says where).
    TooDeep(serde_json::Error),
    /// Not JSON (serde_json's error, position included).
    Json(serde_json::Error),
}

impl ReadError {
    /// As an [`Error`]: too many items is `LIMIT_EXCEEDED` naming `what`; invalid JSON is what
    /// `not_json` makes of serde_json's error.
    pub fn into_error(self, what: &str, not_json: impl FnOnce(serde_json::Error) -> Error) -> Error {
        match self {
            ReadError::TooManyItems => Error::new(
                ErrorCode::LimitExceeded,
                format!("{what} holds more than {MAX_JSON_ITEMS} JSON values, more than can be read in memory at once"),
            ),
            ReadError::TooDeep(e) => Error::new(ErrorCode::LimitExceeded, format!("{what} cannot be read: arrays and objects {e}")),
            ReadError::Json(e) => not_json(e),
        }
    }
}

/// serde_json's own `Value` reader, counting items ([`read_json`]).
struct ValueSeed<'c>(&'c mut Items);

impl<'de> serde::de::DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

// Every method serde_json's `deserialize_any` calls is here, so that serde's default "invalid
// type" error (which formats the value) is never linked in.
impl<'de> serde::de::Visitor<'de> for ValueSeed<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("JSON")
    }
    fn visit_unit<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_bool<E>(self, b: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_u64<E>(self, n: u64) -> std::result::Result<Value, E> {
        Ok(Value::Number(n.into()))
    }
    fn visit_i64<E>(self, n: i64) -> std::result::Result<Value, E> {
        Ok(Value::Number(n.into()))
    }
    fn visit_f64<E>(self, n: f64) -> std::result::Result<Value, E> {
        Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, s: &str) -> std::result::Result<Value, E> {
        Ok(Value::String(s.owned()))
    }
    fn visit_string<E>(self, s: String) -> std::result::Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Value, A::Error> {
        self.0.enter()?;
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(ValueSeed(&mut *self.0))? {
            self.0.count()?;
            out.push(v);
        }
        self.0.nesting -= 1;
        Ok(Value::Array(out))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Value, A::Error> {
        self.0.enter()?;
        let mut out = JsonObject::new();
        while let Some(k) = map.next_key::<String>()? {
            let v = map.next_value_seed(ValueSeed(&mut *self.0))?;
            self.0.count()?;
            out.insert(k, v);
        }
        self.0.nesting -= 1;
        Ok(Value::Object(out))
    }
}

/// Size figures of a JSON value, measured without recursion so that any input, however deep,
/// can be checked before recursive code touches it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JsonSize {
    /// Nesting depth (a scalar is 0).
    pub depth: usize,
    /// Number of values.
    pub nodes: usize,
    /// Longest string (keys included), in bytes.
    pub longest_string: usize,
}

/// Measures a JSON value (see [`JsonSize`]).
pub fn json_size(v: &Value) -> JsonSize {
    let mut size = JsonSize::default();
    let mut stack: Vec<(&Value, usize)> = vec![(v, 0)];
    while let Some((v, d)) = stack.pop() {
        size.nodes += 1;
        match v {
            Value::Object(o) => {
                size.depth = size.depth.max(d + 1);
                for (k, c) in o {
                    size.longest_string = size.longest_string.max(k.len());
                    stack.push((c, d + 1));
                }
            }
            Value::Array(a) => {
                size.depth = size.depth.max(d + 1);
                stack.extend(a.iter().map(|c| (c, d + 1)));
            }
            Value::String(s) => size.longest_string = size.longest_string.max(s.len()),
            _ => {}
        }
    }
    size
}

/// The nesting depth of a JSON value (see [`json_size`]).
pub fn json_depth(v: &Value) -> usize {
    json_size(v).depth
}

/// [`read_json`], with lone surrogate escapes (`"\ud83d"`: a JS string cut inside an emoji, which
/// `JSON.stringify` writes so and no UTF-8 string can hold) read as U+FFFD, as `JSON.parse`
/// keeps them and the MCP SDK reads them. The text is repaired only after it failed to parse,
/// so text without one costs nothing more.
pub fn read_json_repaired(text: &str) -> std::result::Result<Value, ReadError> {
    match read_json(text) {
        Err(ReadError::Json(e)) => match repair_lone_surrogates(text) {
            Some(fixed) => read_json(&fixed),
            None => Err(ReadError::Json(e)),
        },
        read => read,
    }
}

/// Whether serde_json refused a text for a number past a double's range (`1e400`, or an
/// integer of more than 309 digits): valid JSON (RFC 8259 leaves the range to the reader),
/// which `JSON.parse` reads as `Infinity`.
pub fn is_number_out_of_range(e: &serde_json::Error) -> bool {
    e.is_syntax() && e.to_string().starts_with("number out of range")
}

/// The largest double, which a number past a double's range is read as by
/// [`clamp_huge_numbers`]: it keeps its order against every finite number (as `JSON.parse`'s
/// `Infinity` does), and, unlike `Infinity`, it is a JSON number still.
pub const CLAMPED_NUMBER: &str = "1.7976931348623157e308";

/// JSON text with each number literal past a double's range (outside strings) written as
/// ±[`CLAMPED_NUMBER`]; `None` when there is none (so the caller's error stands). A number
/// too small for a double is not touched: serde_json already reads it as 0, as `JSON.parse` does.
pub fn clamp_huge_numbers(text: &str) -> Option<String> {
    let mut out: Option<String> = None;
    // Where the text not yet copied to `out` begins.
    let mut copied = 0;
    while let Some((start, end)) = next_huge_number(text, copied) {
        let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
        o.push_str(&text[copied..start]);
        if text[start..].starts_with('-') {
            o.push('-');
        }
        o.push_str(CLAMPED_NUMBER);
        copied = end;
    }
    let mut out = out?;
    out.push_str(&text[copied..]);
    Some(out)
}

/// The first number literal of JSON text past a double's range, as written (`1e400`): the one
/// serde_json's "number out of range" is about.
pub fn first_huge_number(text: &str) -> Option<&str> {
    next_huge_number(text, 0).map(|(start, end)| &text[start..end])
}

/// Where the next number literal past a double's range is in JSON text, from byte `from` (outside
/// a string, or at the start of one).
fn next_huge_number(text: &str, from: usize) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i += 1;
                while i < b.len() && matches!(b[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
                    i += 1;
                }
                // Read by serde_json's own reader (Rust's float parsing is not otherwise in the
                // module), which refuses it as out of range.
                if serde_json::from_str::<Value>(&text[start..i]).is_err_and(|e| is_number_out_of_range(&e)) {
                    return Some((start, i));
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// [`read_json`], a number past a double's range read as ±[`CLAMPED_NUMBER`]
/// ([`clamp_huge_numbers`]). The text is rewritten only after it failed to parse for such a
/// number, so text without one costs nothing more.
pub fn read_json_clamped(text: &str) -> std::result::Result<Value, ReadError> {
    match read_json(text) {
        Err(ReadError::Json(e)) if is_number_out_of_range(&e) => match clamp_huge_numbers(text) {
            Some(fixed) => read_json(&fixed),
            None => Err(ReadError::Json(e)),
        },
        read => read,
    }
}

/// Replaces `\uD800`-`\uDFFF` escapes that do not form a surrogate pair with `\uFFFD` in
/// JSON text. Returns `None` when there is none (so the caller's error stands).
pub fn repair_lone_surrogates(text: &str) -> Option<String> {
    repair_lone_surrogates_at(text).map(|(fixed, _)| fixed)
}

/// [`repair_lone_surrogates`], with where each replaced escape began in `text` (a byte offset).
pub fn repair_lone_surrogates_at(text: &str) -> Option<(String, Vec<usize>)> {
    let b = text.as_bytes();
    let hex4 = |i: usize| -> Option<u32> {
        let s = text.get(i..i + 4)?;
        u32::from_str_radix(s, 16).ok()
    };
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut at = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        // An escape: `\\` (skip both), or `\u` + 4 hex digits.
        if b.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let Some(cp) = hex4(i + 2) else {
            i += 2;
            continue;
        };
        let is_high = (0xD800..0xDC00).contains(&cp);
        let is_low = (0xDC00..0xE000).contains(&cp);
        if is_high && b.get(i + 6) == Some(&b'\\') && b.get(i + 7) == Some(&b'u') && hex4(i + 8).is_some_and(|n| (0xDC00..0xE000).contains(&n)) {
            i += 12; // a proper pair
            continue;
        }
        if is_high || is_low {
            out.push_str(&text[last..i]);
            out.push_str("\\uFFFD");
            last = i + 6;
            at.push(i);
        }
        i += 6;
    }
    if at.is_empty() {
        return None;
    }
    out.push_str(&text[last..]);
    Some((out, at))
}

/// The JSON pointer of the string (a value, or a key: the pointer then ends with that key)
/// holding each of `offsets` (byte offsets, ascending) in `text`, JSON text as
/// [`repair_lone_surrogates_at`] leaves it (the same length: an escape replaces an escape).
/// A scan of the text's tokens, no tree: for messages about where a repair was made.
pub fn pointers_at(text: &str, offsets: &[usize]) -> Vec<String> {
    enum Open {
        Object(Option<String>),
        Array(usize),
    }
    let b = text.as_bytes();
    let mut open: Vec<Open> = Vec::new();
    let mut found = Vec::with_capacity(offsets.len());
    let mut next = offsets.iter().copied().peekable();
    // Whether the next string in an object is a key.
    let mut key_next = false;
    let mut i = 0;
    while i < b.len() && next.peek().is_some() {
        match b[i] {
            b'{' => {
                open.push(Open::Object(None));
                key_next = true;
            }
            b'[' => open.push(Open::Array(0)),
            b'}' | b']' => {
                open.pop();
                key_next = false;
            }
            b',' => match open.last_mut() {
                Some(Open::Array(n)) => *n += 1,
                Some(Open::Object(_)) => key_next = true,
                None => {}
            },
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                // Read as a `Value`: serde_json's typed `String` reader brings its "invalid type"
                // messages, and with them Rust's float formatting, into the module.
                let key = key_next.then(|| match serde_json::from_str(&text[start..=i.min(b.len() - 1)]) {
                    Ok(Value::String(k)) => k,
                    _ => String::new(),
                });
                key_next = false;
                if let (Some(k), Some(Open::Object(slot))) = (&key, open.last_mut()) {
                    *slot = Some(k.clone());
                }
                while next.peek().is_some_and(|&at| at < i) {
                    next.next();
                    found.push(pointer(&open));
                }
            }
            _ => {}
        }
        i += 1;
    }
    return found;

    fn pointer(open: &[Open]) -> String {
        let mut p = String::new();
        for o in open {
            match o {
                Open::Object(key) => crate::text::push_pointer_token(&mut p, key.as_deref().unwrap_or_default()),
                Open::Array(n) => crate::text::push_pointer_token(&mut p, &n.to_string()),
            }
        }
        p
    }
}

/// The JSON type name of a value, for messages.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A non-negative integer as `JSON.parse` reads it, however the JSON text spells it: `1`, `1.0`,
/// `1e0`, `-0` (a double with no fraction is that integer; JS writes it again as `1`).
pub(crate) fn integral_u64(n: &serde_json::Number) -> Option<u64> {
    n.as_u64().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && (0.0..2f64.powi(64)).contains(f)).map(|f| f as u64))
}

/// Every integer in `v` spelled as a double (`0.0`, `1e0`, `-0`) made the integer it is, as
/// `JSON.parse` reads it and `JSON.stringify` writes it again: text read as an object given for
/// it is (an index written `0.0` by a proxy that writes numbers as doubles is the index 0).
pub(crate) fn integral_numbers(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            if let Some(u) = integral_u64(n) {
                *v = Value::from(u);
            } else if let Some(f) = n.as_f64().filter(|f| f.fract() == 0.0 && (-(2f64.powi(63))..0.0).contains(f)) {
                *v = Value::from(f as i64);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(integral_numbers),
        Value::Object(o) => o.values_mut().for_each(integral_numbers),
        _ => {}
    }
}

/// A field of the wrong type, a missing field or an unknown one, found by a hand-written
/// reader. The crate reads its own typed JSON (name maps, argument plans, policies) by hand
/// rather than through serde derives: typed serde visitors and their error messages (which
/// format floats) cost more wasm than everything they read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldError {
    /// Where: `entries[0].args.anyOf[1]` (empty for the value itself).
    path: String,
    /// What, phrased to follow the path: `must be a string, got number`.
    problem: String,
}

/// The result of a hand-written reader.
pub(crate) type Read<T> = std::result::Result<T, FieldError>;

impl FieldError {
    /// A problem with the value being read.
    pub(crate) fn new(problem: String) -> Self {
        Self { path: String::new(), problem }
    }

    /// `must be {expected}, got {type}`.
    pub(crate) fn wrong_type(expected: &str, got: &Value) -> Self {
        Self::new(format!("must be {expected}, got {}", json_type(got)))
    }

    /// A required field that is absent.
    pub(crate) fn missing(key: &str) -> Self {
        Self { path: key.owned(), problem: "is missing".owned() }
    }

    fn under(mut self, segment: String) -> Self {
        if !self.path.is_empty() && !self.path.starts_with('[') {
            self.path.insert(0, '.');
        }
        self.path.insert_str(0, &segment);
        self
    }

    /// Locates the error in the field `key` of the enclosing object.
    pub(crate) fn at_key(self, key: &str) -> Self {
        self.under(key.owned())
    }

    /// Locates the error in element `i` of the enclosing array.
    pub(crate) fn at_index(self, i: usize) -> Self {
        self.under(format!("[{i}]"))
    }

    /// The crate error: `{context}: {path} {problem}`.
    pub(crate) fn into_error(self, code: ErrorCode, context: &str) -> Error {
        let subject = if self.path.is_empty() { "the value" } else { &self.path };
        Error::new(code, format!("{context}: {subject} {}", self.problem))
    }
}

/// An object, or a [`FieldError`].
pub(crate) fn read_object(v: &Value) -> Read<&JsonObject> {
    v.as_object().ok_or_else(|| FieldError::wrong_type("an object", v))
}

/// A string (not `null`), or a [`FieldError`].
pub(crate) fn read_string(v: &Value) -> Read<String> {
    v.as_str().map(str::to_owned).ok_or_else(|| FieldError::wrong_type("a string", v))
}

/// A boolean (not `null`), or a [`FieldError`].
pub(crate) fn read_bool(v: &Value) -> Read<bool> {
    v.as_bool().ok_or_else(|| FieldError::wrong_type("a boolean", v))
}

/// An array whose every element `item` reads (errors located at the element).
pub(crate) fn read_array<T>(v: &Value, item: fn(&Value) -> Read<T>) -> Read<Vec<T>> {
    let a = v.as_array().ok_or_else(|| FieldError::wrong_type("an array", v))?;
    a.iter().enumerate().map(|(i, x)| item(x).map_err(|e| e.at_index(i))).collect()
}

/// A field that may be absent (`None`); when present, `read` must accept it (`null` included).
pub(crate) fn read_field<T>(o: &JsonObject, key: &str, read: impl FnOnce(&Value) -> Read<T>) -> Read<Option<T>> {
    o.get(key).map(|v| read(v).map_err(|e| e.at_key(key))).transpose()
}

/// An optional field: absent and `null` are `None`.
pub(crate) fn read_opt_field<T>(o: &JsonObject, key: &str, read: fn(&Value) -> Read<T>) -> Read<Option<T>> {
    read_field(o, key, |v| if v.is_null() { Ok(None) } else { read(v).map(Some) }).map(Option::flatten)
}

/// A required field (`null` is not absent: `read` decides whether it accepts it).
pub(crate) fn read_required<T>(o: &JsonObject, key: &str, read: fn(&Value) -> Read<T>) -> Read<T> {
    read_field(o, key, read)?.ok_or_else(|| FieldError::missing(key))
}

/// JSON Schema's equality: numbers by value (`1` is `1.0`), containers member by member.
pub(crate) fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
            (Some(x), Some(y), ..) => x == y,
            (_, _, Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w))),
        _ => a == b,
    }
}

/// What reading an error `name` (with its `code`, if any) as a CallToolResult gives: the call
/// failed, and the result to give the model instead. Also for a JS `Error` that JSON makes no
/// such object of (the MCP SDK's `StreamableHTTPError`, a fetch's `TypeError`).
pub(crate) fn error_as_result(name: &str, code: Option<&Value>) -> Error {
    let code = match code {
        Some(Value::String(c)) => format!(" ({})", crate::text::excerpt(c, 40)),
        Some(Value::Number(n)) => format!(" ({n})"),
        _ => String::new(),
    };
    Error::new(
        ErrorCode::InvalidInput,
        format!(
            "expected a CallToolResult ({{content: [...], structuredContent?, isError?}}), a content array, or a hub's callTool result; got an error, {name}{code}, not a result: the call failed (a callTool that rejects throws it); give the model a result that says so, {{isError: true, content: [{{type: \"text\", text: error.message}}]}}"
        ),
    )
}

/// The name of the error `o` is the JSON of, when it is one: a `name` such as `ToolwireError` or
/// `McpError` (which their classes make an own field, so JSON keeps it, and a `message` beside it
/// at most).
fn error_name(o: &serde_json::Map<String, Value>) -> Option<String> {
    let name = o.get("name").and_then(Value::as_str)?;
    let word = name.len() <= 64 && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    (word && name.ends_with("Error") && o.get("message").is_none_or(Value::is_string)).then(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    /// `blank` is `trim().is_empty()`, for ASCII and other whitespace (U+000B, U+00A0, U+3000).
    #[test]
    fn blank_is_trimmed_empty() {
        for s in ["", " ", "\t\n\r", "\u{b}", "\u{c}", "\u{a0}", "\u{3000} ", "x", " x ", "\u{b}x", "\u{e9}", "\u{200b}", "!", "\u{1F600}", "\u{0}"] {
            assert_eq!(blank(s), s.trim().is_empty(), "{s:?}");
        }
        assert_eq!(description_text(Some("\u{a0}"), Some("title")), "title");
        assert_eq!(description_text(Some(" a"), Some("title")), " a");
    }

    /// [`Holds`] answers as [`str::contains`] on the text, before its index is built, with it
    /// and after the text outgrows it, in both directions; a text past
    /// [`Holds::MAX_INDEXED`] bytes is never indexed (some 100 bytes per byte of text: one
    /// description of a megabyte and a few joins took 80 MB, a chain of megabyte descriptions
    /// ran wasm32 out of memory).
    #[test]
    fn holds_answers_as_contains_and_indexes_only_small_texts() {
        for reversed in [false, true] {
            let mut text = String::from("a b");
            let mut held = Holds::default();
            for i in 0..40 {
                let piece = format!("p{} b", i % 7);
                for asked in [piece.as_str(), "a b", "b p1", "zz", "p3 b"] {
                    assert_eq!(held.holds(text.len(), || Cow::Borrowed(text.as_str()), asked, reversed), text.contains(asked), "{reversed} {i} {text:?} {asked:?}");
                }
                if !text.contains(piece.as_str()) {
                    if reversed {
                        text = format!("{piece} {text}");
                        held.extend(b" ", false, text.len());
                        held.extend(piece.as_bytes(), true, text.len());
                    } else {
                        text = format!("{text} {piece}");
                        held.extend(b" ", false, text.len());
                        held.extend(piece.as_bytes(), false, text.len());
                    }
                }
            }
            assert!(held.index.is_some(), "{reversed}: indexed after {} questions", Holds::SCANS);
            let big = "x".repeat(Holds::MAX_INDEXED - 2);
            held.extend(big.as_bytes(), reversed, text.len() + big.len());
            assert!(held.index.is_none(), "{reversed}: an index past {} bytes is dropped", Holds::MAX_INDEXED);
            let mut large = Holds::default();
            let text = "y".repeat(Holds::MAX_INDEXED + 1);
            for _ in 0..20 {
                assert!(large.holds(text.len(), || Cow::Borrowed(text.as_str()), "yy", reversed));
                assert!(!large.holds(text.len(), || Cow::Borrowed(text.as_str()), "yx", reversed));
            }
            assert!(large.index.is_none(), "{reversed}: a text of {} bytes is read, not indexed", text.len());
        }
    }

    /// [`Substrings`] holds what [`str::contains`] finds, for every piece of texts grown a byte
    /// at a time, forwards and in reverse, over a small alphabet (many repeats) and in UTF-8.
    #[test]
    fn substrings_hold_what_contains_finds() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m as u64) as usize
        };
        for alphabet in [&["a", "b"][..], &["a", "b", "c", " "], &["é", "a", "\n"]] {
            for _ in 0..60 {
                let text: String = (0..next(40)).map(|_| alphabet[next(alphabet.len())]).collect();
                let mut held = Substrings::default();
                held.extend(text.as_bytes(), false);
                let mut reversed = Substrings::default();
                reversed.extend(text.as_bytes(), true);
                for _ in 0..40 {
                    let asked: String = (0..next(6)).map(|_| alphabet[next(alphabet.len())]).collect();
                    assert_eq!(held.contains(asked.as_bytes(), false), text.contains(&asked), "{text:?} {asked:?}");
                    assert_eq!(reversed.contains(asked.as_bytes(), true), text.contains(&asked), "{text:?} {asked:?}");
                }
            }
        }
    }

    /// `sort_pairs` orders as core's sort does, and `sorted_by_key` as a stable sort by key does,
    /// on every length up to 40 and on longer runs, with many repeated keys and pairs.
    #[test]
    fn the_crates_sorts_order_as_cores_do() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m) as usize
        };
        for len in (0..40).chain([100, 257, 1000]) {
            for round in 0..20 {
                let m = [2, 5, 1000][round % 3];
                let pairs: Vec<(usize, usize)> = (0..len).map(|_| (next(m), next(3))).collect();
                let (mut ours, mut core) = (pairs.clone(), pairs.clone());
                sort_pairs(&mut ours);
                core.sort_unstable();
                assert_eq!(ours, core);
                let items: Vec<(usize, String)> = pairs.iter().enumerate().map(|(i, p)| (p.0, i.to_string())).collect();
                let mut stable = items.clone();
                stable.sort_by_key(|x| x.0);
                assert_eq!(sorted_by_key(items.clone(), |x| x.0), stable);
                let (mut ours, mut core): (Vec<(String, String)>, _) = (items.iter().map(|(k, i)| (k.to_string(), i.clone())).collect(), Vec::new());
                core.clone_from(&ours);
                heapsort(&mut ours);
                core.sort();
                assert_eq!(ours, core);
            }
        }
        let mut edge = vec![(usize::MAX, 1), (0, usize::MAX), (usize::MAX, 0), (0, 0)];
        sort_pairs(&mut edge);
        assert_eq!(edge, [(0, 0), (0, usize::MAX), (usize::MAX, 0), (usize::MAX, 1)]);
    }

    /// An error passed as a result (a `ToolwireError` a `callTool` rejected with, the MCP SDK's
    /// `McpError`) is named as an error, with the result to give the model instead (s29b F2: it
    /// was "an object without content (its keys: message, name, code)").
    #[test]
    fn an_error_passed_as_a_result_is_named_so() {
        use serde_json::json;
        let cases = [
            (json!({"message":"tools/call timed out after 30000 ms","name":"ToolwireError","code":"TIMEOUT"}), "got an error, ToolwireError (TIMEOUT), not a result"),
            (json!({"name":"McpError","code":-32001}), "got an error, McpError (-32001), not a result"),
        ];
        for (v, want) in cases {
            let e = CallToolResult::from_value(v.clone()).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput);
            assert!(e.message.contains(want), "{}", e.message);
            assert!(e.message.ends_with("{isError: true, content: [{type: \"text\", text: error.message}]}"), "{}", e.message);
        }
        // Another object's `name` is no error's.
        let e = CallToolResult::from_value(json!({"name":"report","size":3})).unwrap_err();
        assert!(e.message.ends_with("got an object without content (its keys: name, size)"), "{}", e.message);
    }

    /// A result given as its JSON text is told to be parsed first; other text is a string.
    #[test]
    fn a_result_given_as_json_text_says_to_parse_it() {
        use serde_json::json;
        for text in [r#"{"content":[]}"#, " [{\"type\":\"text\",\"text\":\"a\"}]"] {
            let e = CallToolResult::from_value(json!(text)).unwrap_err();
            assert_eq!((e.code, e.message.as_str()), (ErrorCode::InvalidInput, "expected a CallToolResult object or a content array, got a string of JSON text: pass JSON.parse(text)"));
        }
        assert!(CallToolResult::from_value(json!("done")).unwrap_err().message.ends_with("got string"));
    }

    /// An array of results, where one result or a content array is taken, is refused (an item
    /// without a `type` that has a result's fields); a content array, unknown blocks and all, is read.
    #[test]
    fn an_array_of_results_is_no_content_array() {
        use serde_json::json;
        let failed = json!({"isError": true, "content": [{"type": "text", "text": "failed"}]});
        for (list, key) in [
            (json!([failed]), "content"),
            (json!([{"type": "text", "text": "a"}, {"structuredContent": {"n": 1}}]), "structuredContent"),
            (json!([{"isError": false}]), "isError"),
            // A hub's callTool answers, `{result, text, isError}` each.
            (json!([{"result": failed, "text": "failed", "isError": true}]), "isError"),
        ] {
            let e = CallToolResult::from_value(list.clone()).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput, "{list}");
            assert!(e.message.contains(&format!("has `{key}` and no `type`")) && e.message.contains("pass one result"), "{}", e.message);
        }
        // Blocks, a block of a type not known, an object with neither: a content array as before.
        let r = CallToolResult::from_value(json!([{"type": "text", "text": "a"}, {"type": "widget", "content": []}, {"note": 1}])).unwrap();
        assert_eq!(r.content.len(), 3);
        // A result wrapping a content array (a hub's `{isError, result: [...]}`) too.
        assert_eq!(CallToolResult::from_value(json!({"isError": true, "result": [{"type": "text", "text": "denied"}]})).unwrap().is_error, Some(true));
    }

    /// A result's `isError` of another type than boolean: only what plainly says no is no error,
    /// wherever a result is read (and `null` is no `isError` at all).
    #[test]
    fn is_error_reads_one_rule() {
        use serde_json::json;
        for yes in [json!(true), json!("true"), json!("TRUE"), json!("True"), json!(1), json!(2.5), json!("yes"), json!("0.0"), json!([]), json!({})] {
            assert!(is_error_value(&yes), "{yes}");
            let r = CallToolResult::from_value(json!({"content":[],"isError":yes})).unwrap();
            assert_eq!((r.is_error, r.extra.contains_key("isError")), (Some(true), false), "{yes}");
        }
        for no in [json!(false), json!(0), json!(-0.0), json!(""), json!(" "), json!("false"), json!(" FALSE ")] {
            assert!(!is_error_value(&no), "{no}");
            assert_eq!(CallToolResult::from_value(json!({"content":[],"isError":no})).unwrap().is_error, Some(false), "{no}");
        }
        assert_eq!(CallToolResult::from_value(json!({"content":[],"isError":null})).unwrap().is_error, None);
        // A result of `isError` alone, of any type but null, is a result; a hub's wrapper too.
        assert_eq!(CallToolResult::from_value(json!({"isError":"true"})).unwrap().is_error, Some(true));
        assert_eq!(CallToolResult::from_value(json!({"toolResult":"x","isError":1})).unwrap().is_error, Some(true));
        assert_eq!(CallToolResult::from_value(json!({"isError":null})).unwrap_err().code, ErrorCode::InvalidInput);
    }

    /// A result without content whose other fields are all it says (`{isError: true, message}`),
    /// and a wrapped content array: their words reach the model.
    #[test]
    fn a_result_without_content_keeps_what_else_it_says() {
        use serde_json::json;
        let r = CallToolResult::from_value(json!({"isError": true, "message": "boom", "_meta": {"m": 1}})).unwrap();
        assert_eq!(r.is_error, Some(true));
        assert!(matches!(&r.content[..], [ContentBlock::Text(t)] if t.text == r#"{"message":"boom"}"#), "{:?}", r.content);
        assert!(r.meta.is_some() && r.extra.is_empty());
        let r = CallToolResult::from_value(json!({"isError": true, "result": [{"type": "text", "text": "denied"}]})).unwrap();
        assert_eq!(r.is_error, Some(true));
        assert!(matches!(&r.content[..], [ContentBlock::Text(t)] if t.text == "denied"), "{:?}", r.content);
        // The same with `content: null` (rF F5).
        let r = CallToolResult::from_value(json!({"content": null, "isError": true, "message": "boom"})).unwrap();
        assert!(matches!(&r.content[..], [ContentBlock::Text(t)] if t.text == r#"{"message":"boom"}"#), "{:?}", r.content);
        // `{}`, `{_meta}` and `{isError}` alone still have no output.
        for v in [json!({}), json!({"_meta": {}}), json!({"isError": false})] {
            assert!(CallToolResult::from_value(v).unwrap().content.is_empty());
        }
        // Content that says nothing (`[]`, empty text) is none: the other fields are its text
        // (s26c F3), but null ones (Python's `meta: None`); content that says something keeps them
        // aside, and so does a structure.
        let r = CallToolResult::from_value(json!({"content": [], "isError": true, "message": "Rate limited"})).unwrap();
        assert!(matches!(&r.content[..], [ContentBlock::Text(t)] if t.text == r#"{"message":"Rate limited"}"#), "{:?}", r.content);
        assert!(r.extra.is_empty());
        let r = CallToolResult::from_value(json!({"content": [{"type": "text", "text": " "}], "isError": true, "error": {"code": 429}, "meta": null})).unwrap();
        assert!(matches!(&r.content[..], [ContentBlock::Text(t)] if t.text == r#"{"error":{"code":429}}"#), "{:?}", r.content);
        let r = CallToolResult::from_value(json!({"content": [], "isError": true, "meta": null, "structuredContent": null})).unwrap();
        assert!(r.content.is_empty());
        let r = CallToolResult::from_value(json!({"content": [{"type": "text", "text": "denied"}], "isError": true, "message": "x"})).unwrap();
        assert_eq!((r.content.len(), r.extra.len()), (1, 1));
        let r = CallToolResult::from_value(json!({"content": [], "structuredContent": {"a": 1}, "message": "x"})).unwrap();
        assert_eq!((r.content.len(), r.extra.len()), (0, 1));
    }

    /// A wrapper's own `isError` is not lost when its result is unwrapped: a failed call is never
    /// given as one that succeeded. A JSON-RPC response with both `result` and `error` is
    /// malformed (JSON-RPC 2.0 allows one), never read as its result.
    #[test]
    fn a_wrappers_is_error_holds() {
        use serde_json::json;
        let inner = json!({"content":[{"type":"text","text":"permission denied"}]});
        for outer in [
            json!({"isError":true,"result":inner}),
            json!({"result":inner,"text":"permission denied","isError":true,"server":"s","tool":"t"}),
            json!({"isError":"yes","result":{"content":[],"isError":false}}),
            json!({"isError":false,"result":{"content":[],"isError":true}}),
        ] {
            let r = CallToolResult::from_value(outer.clone()).unwrap();
            assert_eq!(r.is_error, Some(true), "{outer}");
        }
        let r = CallToolResult::from_value(json!({"isError":false,"result":inner})).unwrap();
        assert_eq!(r.is_error, Some(false));
        assert_eq!(CallToolResult::from_value(json!({"result":inner})).unwrap().is_error, None);
        let both = json!({"jsonrpc":"2.0","id":1,"result":inner,"error":{"code":-32603,"message":"boom"}});
        let err = CallToolResult::from_value(both).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
        assert!(err.message.contains("both"), "{}", err.message);
        // `error: null` is no error (JSON-RPC 1.0 wrote it beside every result).
        let r = CallToolResult::from_value(json!({"jsonrpc":"2.0","id":1,"result":inner,"error":null})).unwrap();
        assert_eq!(r.content.len(), 1);
    }

    /// Another spelling of `inputSchema` is found in any case, with `_` or `-` between letters;
    /// `inputSchema` itself and keys that only share letters are not.
    #[test]
    fn spells_input_schema_matches_only_other_spellings() {
        for k in ["inputschema", "input_schema", "Input-Schema", "INPUT_SCHEMA", "input__schema", "_inputSchema"] {
            assert!(spells_input_schema(k), "{k}");
        }
        for k in ["inputSchema", "description", "inputschemas", "inputschem", "input_schema_x", "outputSchema", "inpu7schema", "i_n_p_u_t_schema"] {
            assert!(!spells_input_schema(k), "{k}");
        }
    }

    /// `read_json` reads what `serde_json::from_str` reads, with the same errors, and stops
    /// past `MAX_JSON_ITEMS` items (array elements and object members).
    #[test]
    fn read_json_is_serde_json_with_an_item_limit() {
        for text in [
            r#"{"a":1,"b":[true,null,-2,3.5e300,18446744073709551615,-9223372036854775808,0.1],"a":"x\u00e9\n"}"#,
            r#"[[], {}, "", [[[1]]], {"k": {"k": {}}}]"#,
            "1e400",
            "[1, 2,]",
            "{\"a\" 1}",
            "[1] x",
            "",
        ] {
            let ours = read_json(text).map_err(|e| match e {
                ReadError::Json(e) => e.to_string(),
                ReadError::TooManyItems | ReadError::TooDeep(_) => "too many".into(),
            });
            assert_eq!(ours, serde_json::from_str::<Value>(text).map_err(|e| e.to_string()), "{text}");
        }
        // Nesting: serde_json's own limit (128) is lifted, ours ends the read at 400 levels,
        // however the arrays and objects alternate, and says where.
        let nested = |n: usize| format!("{}1{}", r#"{"a":["#.repeat(n / 2), "]}".repeat(n / 2));
        let deep = nested(MAX_JSON_NESTING);
        let mut v = &read_json(&deep).unwrap();
        for _ in 0..MAX_JSON_NESTING / 2 {
            v = &v["a"][0];
        }
        assert_eq!(*v, 1);
        let too_deep = nested(MAX_JSON_NESTING + 2);
        let Err(ReadError::TooDeep(e)) = read_json(&too_deep) else { panic!("read past the nesting bound") };
        // The 401st level opens at column 1201 (six characters per two levels).
        assert_eq!((e.line(), e.column()), (1, 1201), "{e}");
        let e = ReadError::TooDeep(e).into_error("tools", |_| unreachable!());
        assert_eq!(e.code, ErrorCode::LimitExceeded);
        assert!(e.message.starts_with("tools cannot be read: arrays and objects nesting deeper than 400 levels at line 1"), "{}", e.message);
        let arrays = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(matches!(read_json(&arrays), Err(ReadError::TooDeep(_))));

        // The limit, at 1,000 (the JS tests run the real one): elements and members both count.
        let at_limit = format!("[{}1]", "1,".repeat(999));
        assert!(matches!(read_json_with(&at_limit, 1000), Ok(Value::Array(a)) if a.len() == 1000));
        let members = format!("[{{{}\"k\":1}}]", "\"k\":1,".repeat(999));
        assert!(matches!(read_json_with(&members, 1000), Err(ReadError::TooManyItems)), "1,000 members and one element");
        assert!(matches!(read_json_with(&format!("[{}[]]", "[],".repeat(1000)), 1000), Err(ReadError::TooManyItems)));
        assert!(matches!(read_json_with("[1 x", 1000), Err(ReadError::Json(_))), "invalid JSON stays a JSON error");
        assert_eq!(ReadError::TooManyItems.into_error("x", |_| unreachable!()).code, ErrorCode::LimitExceeded);
    }

    #[test]
    fn pointers_name_the_string_each_repair_was_in() {
        let text = r#"[{"name":"a","d":"\ud800"},{"p":{"k\udc00":{"enum":["x",["y","\ud83d"]]},"~/":"\udfff"}},"\ud800"]"#;
        let (fixed, at) = repair_lone_surrogates_at(text).unwrap();
        assert_eq!(fixed.len(), text.len(), "an escape replaces an escape");
        assert_eq!(at.len(), 5);
        assert_eq!(pointers_at(&fixed, &at), ["/0/d", "/1/p/k\u{fffd}", "/1/p/k\u{fffd}/enum/1/1", "/1/p/~0~1", "/2"]);
        // Only the offsets asked for; a string after an emptied container is a value, not a key.
        assert_eq!(pointers_at(&fixed, &at[1..2]), ["/1/p/k\u{fffd}"]);
        let (fixed, at) = repair_lone_surrogates_at(r#"{"a":[{}, "\ud800"]}"#).unwrap();
        assert_eq!(pointers_at(&fixed, &at), ["/a/1"]);
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert_eq!(repair_lone_surrogates(r#""a\ud800b""#).as_deref(), Some(r#""a\uFFFDb""#));
        assert_eq!(repair_lone_surrogates(r#""\udc00""#).as_deref(), Some(r#""\uFFFD""#));
        assert_eq!(repair_lone_surrogates(r#""\ud83d\ude00 ok""#), None, "a pair is kept");
        assert_eq!(repair_lone_surrogates(r#""\\ud800""#), None, "an escaped backslash is text");
        let fixed = repair_lone_surrogates(r#"{"k":"\ud83d\ud83d\ude00"}"#).unwrap();
        let v: Value = serde_json::from_str(&fixed).unwrap();
        assert_eq!(v["k"], "\u{fffd}😀");
    }

    #[test]
    fn sizes_are_measured_without_recursion() {
        let mut v = Value::Null;
        for _ in 0..100_000 {
            v = Value::Array(vec![v]);
        }
        let s = json_size(&v);
        assert_eq!(s.depth, 100_000);
        // Dropping a value this deep would recurse; leak it on purpose in this test.
        std::mem::forget(v);
    }
}
