//! Local `$ref` inlining.
//!
//! Resolves every local reference (`#/$defs/X`, `#/definitions/X`, and any JSON pointer into
//! the document such as `#/properties/headers/items`, or `#` itself) against the root schema.
//! Sibling keywords of a `$ref` are combined with the target (2019-09+ reads `$ref` + siblings
//! as an intersection; the siblings seen in practice are `description`, `default` and `title`):
//! see [`crate::schema::siblings`], which reports what cannot be said in one node.
//! A reference that is being expanded inside itself is unrolled at most
//! [`Limits::max_ref_unroll`](crate::schema::Limits) times, then cut to an open object whose
//! description says what was cut. The references of one recursion (definitions that lead to
//! one another: `reference_components`) count together, so that K kinds holding one another
//! unroll as deep as one kind, not K times as deep; and unrolling stops within its own budget
//! (`unroll_budget`). Each reference cut is one `refs/recursion-cut` change, at its first
//! place. So is a recursive reference (one whose target leads back to
//! it) where expanding it would nest past the depth limit: a recursion of many kinds, each
//! unrolled in turn, would otherwise reach the limit before any kind is unrolled enough to be
//! cut. Unresolvable references are removed and reported. Node and depth budgets bound the work
//! even for reference fan-out.
//!
//! A chain of aliases (a target that is only another `$ref`, annotations aside: see
//! [`alias_of`]) is followed at the level of its first reference, as if each hop were resolved
//! inside the one before (the same unrolling and cuts, each hop's annotations combined with what
//! it leads to as siblings are), so that it nests no deeper however long it is; each hop counts
//! as a node. A chain that goes round without reaching a schema becomes a described open object,
//! reported as `refs/unresolvable` (and stops the strict inlining, as a recursion does).
//!
//! A provider whose output is text may ask for [`Shared`] expansions: a definition used in
//! several places is then expanded (and later lowered and written) once, and the tree holds a
//! placeholder for it everywhere else.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::args::ArgPlan;
use crate::error::Result;
use crate::model::{string, JsonObject, Keyed as _, Put as _};
use crate::schema::siblings::JoinedDescriptions;
use crate::schema::walk::{slot, Keyword, Slot};
use crate::schema::{is_annotation, Cx};
use crate::text::Owned as _;

/// Returns `schema` with every local `$ref` inlined and `$defs`/`definitions` removed.
///
/// Besides the recursion bound, the expansion has a size budget: four times the input's node
/// count (at least 2,000 nodes). Mutually recursive definitions (Microsoft Graph's mail
/// folders, say) would otherwise grow exponentially; once the budget is spent, further
/// references are cut to described open objects, and the report says where.
pub fn inline_refs(schema: &Value, cx: &mut Cx) -> Result<Value> {
    inline(schema, cx, false, false).map(|v| v.unwrap_or(Value::Null))
}

/// [`inline_refs`], with the expansions that can be shared left as placeholders (see
/// [`Shared`]) when the context allows it ([`Cx::share_refs`]). The placeholders stand only
/// where the caller reads nothing but the subschema itself: under `properties` and under an
/// array's `items`, on a path from the root with no `anyOf`, `oneOf` or `allOf`, whose nodes are
/// rewritten one by one. The caller must resolve them with [`Cx`]'s shared expansions.
pub fn inline_refs_shared(schema: &Value, cx: &mut Cx) -> Result<Value> {
    let share = cx.shares_refs();
    if share {
        cx.shared = Some(Box::default());
    }
    inline(schema, cx, share, false).map(|v| v.unwrap_or(Value::Null))
}

/// [`inline_refs_shared`] for a strict mode, which cannot take a recursive schema: `None` as
/// soon as a recursive reference is cut (the expansion stops there, and so does whatever it
/// would have met further on, a limit included), after recording the cut as
/// [`inline_refs_shared`] does.
pub fn inline_refs_unless_recursive(schema: &Value, cx: &mut Cx) -> Result<Option<Value>> {
    inline_refs_strict(schema, cx).map(|i| i.schema)
}

/// What the strict modes' inlining gives ([`inline_refs_strict`]): the schema and what it cost.
#[derive(Debug)]
pub struct StrictInlining {
    /// The schema with its references inlined, as [`inline_refs_unless_recursive`] gives it
    /// (`None` when a recursive reference was cut).
    pub schema: Option<Value>,
    /// How many references the size budget cut (each an open object in `schema`).
    pub cut: usize,
    /// The size budget, in nodes (`count_nodes` of the input times four, at least 2,000).
    pub budget: usize,
    /// The input's nodes.
    pub input_nodes: usize,
    /// The inlined schema's nodes (an expansion counted wherever it is used).
    pub nodes: usize,
}

impl StrictInlining {
    /// Whether the inlined schema is so much larger than its input that a strict mode which can
    /// keep references (OpenAI's `$defs`) keeps them instead: over four times the input's
    /// nodes (the factor of the size budget) and over 500 nodes, `GROWN_NODES` (a definition used in
    /// many places, a chain of definitions each using the next twice). The corpus's schemas
    /// grow 3.4 times at most.
    pub fn grown(&self) -> bool {
        grown(self.nodes, self.input_nodes)
    }
}

/// The nodes within which a recursion is unrolled (a reference expanded inside its
/// recursion, see [`Limits::max_ref_unroll`](crate::schema::Limits)): four times the input's
/// (as the size budget), at least 500. Past it each such reference is cut as a recursion is,
/// so that a small recursive model (a union of kinds each holding the others) grows a few
/// times, not to the size budget's floor of 2,000 nodes.
pub(crate) fn unroll_budget(input_nodes: usize) -> usize {
    input_nodes.saturating_mul(4).max(500)
}

/// See [`StrictInlining::grown`].
pub(crate) const GROWN_NODES: usize = 500;

/// [`StrictInlining::grown`] on the counts (also `fast::refs`'s).
pub(crate) fn grown(nodes: usize, input_nodes: usize) -> bool {
    nodes > GROWN_NODES && nodes > input_nodes.saturating_mul(4)
}

/// [`inline_refs_unless_recursive`], with what the inlining cost.
pub fn inline_refs_strict(schema: &Value, cx: &mut Cx) -> Result<StrictInlining> {
    let share = cx.shares_refs();
    if share {
        cx.shared = Some(Box::default());
    }
    let mut counts = Counts::default();
    let schema = inline_counted(schema, cx, share, true, &mut counts)?;
    Ok(StrictInlining { schema, cut: counts.cut, budget: counts.budget, input_nodes: counts.input_nodes, nodes: counts.nodes })
}

/// What [`inline_counted`] counted.
#[derive(Default)]
struct Counts {
    cut: usize,
    budget: usize,
    input_nodes: usize,
    nodes: usize,
}

/// `stop_at_recursion`: see [`inline_refs_unless_recursive`].
fn inline(schema: &Value, cx: &mut Cx, share: bool, stop_at_recursion: bool) -> Result<Option<Value>> {
    inline_counted(schema, cx, share, stop_at_recursion, &mut Counts::default())
}

/// [`inline`], counting in `counts`.
fn inline_counted(schema: &Value, cx: &mut Cx, share: bool, stop_at_recursion: bool, counts: &mut Counts) -> Result<Option<Value>> {
    let input_nodes = count_nodes(schema, 0);
    let mut st = State {
        stack: Vec::new(),
        first_hop: Vec::new(),
        unrolling: None,
        soft_budget: (input_nodes * 4).max(2_000),
        unroll_budget: unroll_budget(input_nodes),
        unrolled_refs: 0,
        unroll_cuts: 0,
        cut: 0,
        ids: HashMap::new(),
        anchors: Anchors::default(),
        log: RefLog::default(),
        stop_at_recursion,
        stopped: false,
        recursive: HashMap::new(),
        depth_cuts: 0,
        names: Vec::new(),
        components: None,
        component_of: Vec::new(),
    };
    // The root is never a placeholder: a root that is itself a reference shares nothing.
    let share = share && !schema.as_object().is_some_and(|o| o.has("$ref"));
    let changes_before = cx.changes.len();
    let out = resolve(schema, schema, &mut st, cx, share);
    one_cut_per_reference(&mut cx.changes, changes_before);
    *counts = Counts { cut: st.cut, budget: st.soft_budget, input_nodes, nodes: cx.nodes() };
    if st.stopped {
        cx.reset_budget();
        return out.map(|_| None);
    }
    if st.cut > 0 {
        cx.change(
            "refs/expansion-cut",
            format!("$ref expansion reached its size budget; {} deeper references were cut to open objects", st.cut),
        );
    }
    cx.reset_budget();
    out.map(Some)
}

/// Keeps, of the `refs/recursion-cut` changes from `from` on, the first of each reference, which
/// then says at how many places it was cut: a recursive model is cut at hundreds of places, each
/// the same cut.
fn one_cut_per_reference(changes: &mut Vec<crate::report::Diagnostic>, from: usize) {
    if !changes[from..].iter().any(|d| d.rule == "refs/recursion-cut") {
        return;
    }
    let mut first: HashMap<String, (usize, usize)> = HashMap::new();
    let mut kept = Vec::new();
    for d in changes.drain(from..) {
        // The reference is the message's first quoted text.
        let reference = (d.rule == "refs/recursion-cut").then(|| d.message.split('"').nth(1)).flatten();
        if let Some(r) = reference {
            if let Some((_, n)) = first.get_mut(r) {
                *n += 1;
                continue;
            }
            first.insert(r.owned(), (kept.len(), 1));
        }
        kept.push(d);
    }
    for (i, n) in first.into_values() {
        if n > 1 {
            kept[i].message.push_str(&format!("; cut so at {n} places in all, this first one listed"));
        }
    }
    changes.extend(kept);
}

/// Expansions of `$ref` targets that several places share, for the schema in progress.
///
/// An expansion is kept when it does not depend on where it is used: no reference it expanded
/// was being expanded around it, and the size budget cut nothing in it. It is reused wherever
/// the same holds and it fits the node, depth and size budgets from there, so the tree read
/// through the placeholders is the tree [`inline_refs`] builds.
#[derive(Debug, Default)]
pub struct Shared {
    entries: Vec<Entry>,
    /// Reference id (see `State::ids`) → entry.
    by_ref: Vec<Option<usize>>,
}

#[derive(Debug)]
struct Entry {
    expanded: Value,
    /// Nodes entered and levels reached while expanding it.
    nodes: usize,
    height: usize,
    /// The references expanded in it (ids, each once).
    visited: Vec<usize>,
    /// Whether a recursion was unrolled in it (a reference expanded inside its recursion):
    /// reused only where the unrolling budget ([`unroll_budget`]) still holds all of it.
    unrolls: bool,
    rewritten: Option<Rewritten>,
}

/// A provider's rewrite of a schema: the rewritten schema (`None` when it accepts no value) and
/// its argument plan (see [`Shared::rewrite`]).
pub(crate) type Rewrite = Result<(Option<Value>, ArgPlan)>;

/// A shared expansion as a provider rewrote and wrote it (see [`Shared::rewrite`]).
#[derive(Debug)]
struct Rewritten {
    /// The provider's text for it, or `None` when it accepts no value.
    text: Option<String>,
    /// How to map the model's arguments back.
    plan: ArgPlan,
    /// Nodes entered and levels reached while rewriting it.
    nodes: usize,
    height: usize,
}

/// The key of a placeholder, in the position of a subschema. No `$ref` is left in a schema
/// position once references are inlined, and none with a string starting with U+0000 ever
/// resolves; the placeholder for text starts with U+0001.
const PLACEHOLDER: &str = "$ref";
const EXPANDED: char = '\u{0}';
const WRITTEN: char = '\u{1}';
/// Entry `i` is written as the character `INDEX_BASE + i` (past the surrogates, so every
/// index up to a million has one).
const INDEX_BASE: u32 = 0x1_0000;

impl Shared {
    /// The entry a placeholder stands for, if `node` is one.
    pub fn placeholder(node: &JsonObject) -> Option<usize> {
        match node.iter().next() {
            Some((k, Value::String(s))) if node.len() == 1 => Shared::placeholder_entry(k, s),
            _ => None,
        }
    }

    /// The entry a placeholder whose only key is `key`, with the string `value`, stands for.
    pub(crate) fn placeholder_entry(key: &str, value: &str) -> Option<usize> {
        if key != PLACEHOLDER {
            return None;
        }
        let mut chars = value.strip_prefix(EXPANDED)?.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => (c as usize).checked_sub(INDEX_BASE as usize),
            _ => None,
        }
    }

    /// Entry `i`'s expansion.
    pub(crate) fn expansion(&self, i: usize) -> Option<&Value> {
        self.entries.get(i).map(|e| &e.expanded)
    }

    /// The written text a placeholder built by [`Shared::written`] holds, if `node` is one.
    pub(crate) fn written_text(node: &JsonObject) -> Option<&str> {
        match node.iter().next() {
            Some((k, Value::String(s))) if node.len() == 1 && k == PLACEHOLDER => s.strip_prefix(WRITTEN),
            _ => None,
        }
    }

    /// A placeholder holding the provider's text for a shared expansion (or, from the Gemini
    /// lowering of an inlined schema, for the whole schema), which its writer splices in.
    pub(crate) fn written(text: &str) -> Value {
        let mut s = String::with_capacity(text.len() + 1);
        s.push(WRITTEN);
        s.push_str(text);
        let mut m = Map::with_capacity(1);
        m.insert(PLACEHOLDER.into(), Value::String(s));
        Value::Object(m)
    }

    /// Puts the expansion a placeholder stands for in its place, for a rewrite that visits the
    /// tree node by node and may stop early (a strict mode giving up): it then copies only what
    /// it visits, and sees exactly the tree [`inline_refs`] builds.
    pub fn materialize(node: &mut Value, cx: &Cx) {
        let Some(shared) = cx.shared.as_ref() else { return };
        // An expansion may itself be a placeholder (a reference to a reference).
        while let Some(i) = node.as_object().and_then(Shared::placeholder) {
            *node = shared.expanded(i);
        }
    }

    /// A copy of entry `i`'s expansion.
    pub fn expanded(&self, i: usize) -> Value {
        self.entries[i].expanded.clone()
    }

    /// A provider's rewrite of shared expansion `i` (which `cx` holds): the rewritten schema
    /// (`None` when it accepts no value) and its argument plan. The first time, `rewrite` runs
    /// on a copy of the expansion and `write` writes the result once; afterwards that text is
    /// reused (as a placeholder the provider's writer splices in) wherever it fits the limits.
    /// Anywhere else the expansion is rewritten again, so that a limit is exceeded exactly
    /// where rewriting every copy would exceed it.
    pub(crate) fn rewrite(
        cx: &mut Cx,
        i: usize,
        rewrite: &mut dyn FnMut(Value, &mut Cx) -> Rewrite,
        write: fn(&mut Vec<u8>, &Value),
    ) -> Rewrite {
        let Some(shared) = cx.shared.as_ref() else { return Ok((None, ArgPlan::default())) };
        let expanded = match &shared.entries[i].rewritten {
            Some(r) if cx.fits(r.nodes, r.height) => {
                let (out, nodes, height) = ((r.text.as_deref().map(Shared::written), r.plan.clone()), r.nodes, r.height);
                cx.reuse(nodes, height);
                return Ok(out);
            }
            Some(_) => return rewrite(shared.expanded(i), cx),
            None => shared.expanded(i),
        };
        let (result, nodes, height) = cx.measured(|cx| rewrite(expanded, cx));
        let (schema, plan) = result?;
        let text = schema.map(|s| {
            let mut text = Vec::new();
            write(&mut text, &s);
            crate::text::into_string(text)
        });
        let out = (text.as_deref().map(Shared::written), plan.clone());
        if let Some(shared) = cx.shared.as_mut() {
            shared.entries[i].rewritten = Some(Rewritten { text, plan, nodes, height });
        }
        Ok(out)
    }

    /// The placeholder for entry `i`: its index as one character after [`EXPANDED`].
    fn placeholder_for(i: usize) -> Option<Value> {
        let mut m = Map::with_capacity(1);
        m.insert(PLACEHOLDER.into(), Value::String(Shared::placeholder_text(i)?));
        Some(Value::Object(m))
    }

    /// The string of the placeholder for entry `i`, under the key `$ref`.
    pub(crate) fn placeholder_text(i: usize) -> Option<String> {
        Self::placeholder_in(i, &mut [0; 8]).map(str::to_owned)
    }

    /// [`Shared::placeholder_text`], written in `buf`.
    pub(crate) fn placeholder_in(i: usize, buf: &mut [u8; 8]) -> Option<&str> {
        let c = char::from_u32(INDEX_BASE.checked_add(u32::try_from(i).ok()?)?)?;
        let n = EXPANDED.encode_utf8(&mut buf[..]).len();
        let m = c.encode_utf8(&mut buf[n..]).len();
        std::str::from_utf8(&buf[..n + m]).ok()
    }

    fn entry_for(&self, id: usize) -> Option<usize> {
        self.by_ref.get(id).copied().flatten()
    }
}

/// Writes a schema whose `properties` and `items` may hold placeholders from
/// [`Shared::written`]: their text is spliced in; everything else is written as JSON.
pub(crate) fn write_schema(out: &mut Vec<u8>, schema: &Value) {
    use crate::text::{write_object, write_value};
    let Value::Object(o) = schema else { return write_value(out, schema) };
    if let Some(text) = Shared::written_text(o) {
        out.extend_from_slice(text.as_bytes());
        return;
    }
    write_object(out, o, |out, key, v| match (key, v) {
        ("properties", Value::Object(props)) => write_object(out, props, |out, _, p| write_schema(out, p)),
        ("items", _) => write_schema(out, v),
        _ => write_value(out, v),
    });
}

/// The recursions ([`reference_components`]) of the references on the expansion stack, kept
/// as the stack grows and shrinks once they are first asked of ([`State::unrolled`]): how many
/// chains of the stack hold a reference of a recursion is then known in a step, where reading
/// the stack at each reference made a chain of thousands of aliases back to its start cost the
/// square of its length.
#[derive(Default)]
pub(crate) struct Unrolling {
    /// The chains on the stack (each begins at a first hop).
    chains: usize,
    /// Per recursion: how many chains on the stack hold a reference of it, and the last one.
    held: HashMap<usize, usize>,
    last: HashMap<usize, usize>,
    /// Per stack entry: whether it begins a chain, and where it is the first of its chain in its
    /// recursion, the recursion and the chain that held one before.
    entries: Vec<(bool, Option<(usize, usize)>)>,
}

impl Unrolling {
    /// A reference in recursion `component` pushed on the stack; `first`: of its chain.
    pub(crate) fn push(&mut self, component: usize, first: bool) {
        #[cfg(test)]
        crate::model::NAME_STEPS.with(|s| s.set(s.get() + 1));
        debug_assert!(first || self.chains > 0, "the stack begins with a chain's first hop");
        self.chains += usize::from(first);
        let chain = self.chains - 1;
        let last = self.last.insert(component, chain).unwrap_or(usize::MAX);
        let undo = (last != chain).then(|| {
            *self.held.entry(component).or_insert(0) += 1;
            (component, last)
        });
        self.entries.push((first, undo));
    }

    /// The stack cut to `len` entries.
    pub(crate) fn truncate(&mut self, len: usize) {
        while self.entries.len() > len {
            let Some((first, undo)) = self.entries.pop() else { break };
            #[cfg(test)]
            crate::model::NAME_STEPS.with(|s| s.set(s.get() + 1));
            if let Some((component, before)) = undo {
                self.held.entry(component).and_modify(|n| *n -= 1);
                self.last.insert(component, before);
            }
            self.chains -= usize::from(first);
        }
    }

    /// How many chains on the stack below `base` (the entries before it) hold a reference of
    /// recursion `component`.
    pub(crate) fn count(&self, component: usize, base: usize) -> usize {
        let n = self.held.get(&component).copied().unwrap_or(0);
        // The entries from `base` on are one chain, the last.
        n - usize::from(self.entries.len() > base && self.last.get(&component) == Some(&(self.chains - 1)))
    }

    /// Whether a reference of recursion `component` is on the stack.
    pub(crate) fn holds(&self, component: usize) -> bool {
        self.held.get(&component).is_some_and(|&n| n > 0)
    }
}

struct State {
    /// The references being expanded, outermost first (ids).
    stack: Vec<usize>,
    /// Whether each reference of `stack` is the first of its chain of aliases (see
    /// [`State::unrolled`]).
    first_hop: Vec<bool>,
    /// The recursions on `stack`, once asked of.
    unrolling: Option<Unrolling>,
    soft_budget: usize,
    /// See [`unroll_budget`]; how many references were expanded inside their recursion, and
    /// how many were cut for that budget.
    unroll_budget: usize,
    unrolled_refs: usize,
    unroll_cuts: usize,
    cut: usize,
    /// Reference text → a small id.
    ids: HashMap<String, usize>,
    /// The document's `$anchor`s, indexed on the first `#name` reference.
    anchors: Anchors,
    log: RefLog,
    /// Stop at the first recursive reference cut ([`inline_refs_unless_recursive`]), and
    /// whether that happened: every level then returns at once, its result unused.
    stop_at_recursion: bool,
    stopped: bool,
    /// Whether a reference leads back to itself ([`State::recursive`]), by reference text:
    /// asked only where the depth limit is met.
    recursive: HashMap<String, bool>,
    /// References cut for the depth limit so far: an expansion holding one depends on the depth
    /// it stands at, and is not shared.
    depth_cuts: usize,
    /// Each reference text by id, and its recursion ([`reference_components`]) once known.
    names: Vec<String>,
    components: Option<HashMap<String, usize>>,
    component_of: Vec<Option<usize>>,
}

/// Past this many log entries nothing more is shared (the rest is expanded in place), which
/// bounds the bookkeeping on schemas made to defeat it.
pub(crate) const MAX_LOG: usize = 1 << 20;

impl State {
    /// Whether `reference` is recursive: its target holds, directly or through the targets of
    /// the references in it, `reference` again (a `$ref` anywhere in a subtree counts).
    fn recursive(&mut self, reference: &str, root: &Value) -> bool {
        if let Some(&known) = self.recursive.get(reference) {
            return known;
        }
        let mut seen: HashSet<&str> = HashSet::new();
        let mut todo: Vec<&str> = Vec::new();
        if let Some(t) = self.anchors.lookup(root, reference) {
            refs_under(t, false, &mut todo, 0);
        }
        let mut found = false;
        while let Some(r) = todo.pop() {
            if r == reference {
                found = true;
                break;
            }
            if seen.insert(r) {
                if let Some(t) = self.anchors.lookup(root, r) {
                    refs_under(t, false, &mut todo, 0);
                }
            }
        }
        self.recursive.insert(reference.owned(), found);
        found
    }

    fn id(&mut self, reference: &str) -> usize {
        if let Some(&id) = self.ids.get(reference) {
            return id;
        }
        let id = self.ids.len();
        self.ids.insert(reference.owned(), id);
        self.names.push(reference.owned());
        id
    }

    /// How many times the recursion of reference `id` is being expanded around it: the
    /// expansions on the stack below `base` (where the chain of aliases `id` is a hop of
    /// started) that hold a reference in its recursion (see [`reference_components`]), a chain
    /// of aliases counting as one expansion. A reference in no recursion is never on the stack
    /// around itself, and one alone in its recursion counts as itself.
    fn unrolled(&mut self, id: usize, root: &Value, base: usize) -> usize {
        if base == 0 {
            return 0;
        }
        let c = self.component(id, root);
        self.unrolling(root).count(c, base)
    }

    /// The recursions on the stack ([`Unrolling`]), made from it the first time.
    fn unrolling(&mut self, root: &Value) -> &Unrolling {
        if self.unrolling.is_none() {
            let mut unrolling = Unrolling::default();
            for k in 0..self.stack.len() {
                unrolling.push(self.component(self.stack[k], root), self.first_hop[k]);
            }
            self.unrolling = Some(unrolling);
        }
        self.unrolling.get_or_insert_with(Unrolling::default)
    }

    /// `id` pushed on the stack, `first` of its chain.
    fn push(&mut self, id: usize, first: bool, root: &Value) {
        self.stack.push(id);
        self.first_hop.push(first);
        if self.unrolling.is_some() {
            let c = self.component(id, root);
            if let Some(unrolling) = &mut self.unrolling {
                unrolling.push(c, first);
            }
        }
    }

    /// The stack cut to `len` entries.
    fn truncate(&mut self, len: usize) {
        self.stack.truncate(len);
        self.first_hop.truncate(len);
        if let Some(unrolling) = &mut self.unrolling {
            unrolling.truncate(len);
        }
    }

    /// Whether any of the references `visited` is in a recursion being expanded around here
    /// (one on the stack): an expansion that visited it would be unrolled otherwise here.
    fn any_unrolling(&mut self, visited: &[usize], root: &Value) -> bool {
        if self.stack.is_empty() {
            return false;
        }
        self.unrolling(root);
        visited.iter().any(|&v| {
            let c = self.component(v, root);
            self.unrolling.as_ref().is_some_and(|u| u.holds(c))
        })
    }

    /// The recursion of reference `id` (its strongly connected component), found for every
    /// reference the expansion can meet the first time.
    fn component(&mut self, id: usize, root: &Value) -> usize {
        if let Some(Some(c)) = self.component_of.get(id) {
            return *c;
        }
        let components = self.components.get_or_insert_with(|| reference_components(root, &mut self.anchors));
        // A reference the walk did not see (past its depth): a recursion of its own.
        let c = components.get(&self.names[id]).copied();
        let c = c.unwrap_or(usize::MAX - id);
        if self.component_of.len() <= id {
            self.component_of.resize(id + 1, None);
        }
        self.component_of[id] = Some(c);
        c
    }
}

/// The `$ref` texts under `node` (to 256 levels), in document order, each as often as it
/// stands; with `skip_definitions`, not those under `$defs` or `definitions` (which the
/// expansion of `node` skips).
fn refs_under<'a>(node: &'a Value, skip_definitions: bool, out: &mut Vec<&'a str>, depth: usize) {
    match node {
        Value::Object(o) if depth <= 256 => {
            for (k, v) in o {
                match (k.as_str(), v) {
                    ("$ref", Value::String(r)) => out.push(r),
                    ("$defs" | "definitions", _) if skip_definitions => {}
                    _ => refs_under(v, skip_definitions, out, depth + 1),
                }
            }
        }
        Value::Array(a) if depth <= 256 => a.iter().for_each(|v| refs_under(v, skip_definitions, out, depth + 1)),
        _ => {}
    }
}

/// The recursions of a document's references: each `$ref` text it holds, with the number of
/// its strongly connected component in the graph where a reference leads to those its target
/// holds (outside that target's definitions). References in one recursion are unrolled as one
/// (`Limits::max_ref_unroll` counts them together on a path), so that several kinds referring
/// to one another (a union of step kinds, each holding steps) unroll as deep as one would.
/// Only the references the expansion of `root` can meet are numbered: those outside its
/// definitions, and those their targets lead to (a part of the graph that holds every
/// successor of its references, so their recursions are the same as in the whole). A schema
/// with many definitions it mostly does not use (an API's whole model in each tool) costs only
/// those it uses.
fn reference_components(root: &Value, anchors: &mut Anchors) -> HashMap<String, usize> {
    let mut seeds = Vec::new();
    refs_under(root, true, &mut seeds, 0);
    let components = reachable_components(seeds, |r| {
        let mut out = Vec::new();
        if let Some(t) = anchors.lookup(root, r) {
            refs_under(t, true, &mut out, 0);
        }
        Some(out)
    });
    components.into_iter().flatten().map(|(r, c)| (r.owned(), c)).collect()
}

/// The strongly connected component of each reference reachable from `seeds`, where
/// `successors` gives the references a reference leads to (`None`: not known, and so none of
/// it is).
pub(crate) fn reachable_components<'a>(seeds: Vec<&'a str>, mut successors: impl FnMut(&'a str) -> Option<Vec<&'a str>>) -> Option<HashMap<&'a str, usize>> {
    let (mut index, mut names) = numbered(seeds);
    let mut edges: Vec<Vec<usize>> = Vec::with_capacity(names.len());
    while edges.len() < names.len() {
        let next = successors(names[edges.len()])?;
        let out = next
            .into_iter()
            .map(|r| {
                *index.entry(r).or_insert_with(|| {
                    names.push(r);
                    names.len() - 1
                })
            })
            .collect();
        edges.push(out);
    }
    let components = strongly_connected(&edges);
    Some(names.into_iter().zip(components).collect())
}

/// Each of `all` (references, repeats among them) numbered in the order first met: the number
/// of each, and each by its number.
pub(crate) fn numbered(all: Vec<&str>) -> (HashMap<&str, usize>, Vec<&str>) {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut names = Vec::new();
    for r in all {
        index.entry(r).or_insert_with(|| {
            names.push(r);
            names.len() - 1
        });
    }
    (index, names)
}

/// The strongly connected component of each node of a graph (`edges[i]`: where node `i`
/// leads), numbered from 0: Tarjan's algorithm, iterative (a chain of thousands of aliases is
/// a path that deep).
pub(crate) fn strongly_connected(edges: &[Vec<usize>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n = edges.len();
    let (mut index, mut low, mut on_stack) = (vec![UNSEEN; n], vec![0; n], vec![false; n]);
    let mut component = vec![UNSEEN; n];
    let (mut next_index, mut next_component) = (0, 0);
    let mut stack = Vec::new();
    // (node, next edge to follow)
    let mut calls: Vec<(usize, usize)> = Vec::new();
    for start in 0..n {
        if index[start] != UNSEEN {
            continue;
        }
        calls.push((start, 0));
        index[start] = next_index;
        low[start] = next_index;
        next_index += 1;
        stack.push(start);
        on_stack[start] = true;
        while let Some(&mut (v, ref mut e)) = calls.last_mut() {
            if let Some(&w) = edges[v].get(*e) {
                *e += 1;
                if index[w] == UNSEEN {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = next_component;
                    if w == v {
                        break;
                    }
                }
                next_component += 1;
            }
        }
    }
    component
}

/// Every reference decided on so far, in order (ids), with the visited references of each
/// shared expansion reused: what an expansion visited is the part of the log it added. Kept by
/// this inlining and by `fast::refs`, its port to the borrowed tree.
#[derive(Default)]
pub(crate) struct RefLog {
    pub(crate) log: Vec<usize>,
    /// `mark[id] == stamp`: `id` already counted in the visited set being collected.
    mark: Vec<u32>,
    stamp: u32,
}

impl RefLog {
    /// The references in `log[from..]`, each once; `ids` is how many there are.
    pub(crate) fn visited_since(&mut self, from: usize, ids: usize) -> Vec<usize> {
        let mut visited = Vec::new();
        self.visited_since_into(from, ids, &mut visited);
        visited
    }

    /// [`RefLog::visited_since`], added to `visited`.
    pub(crate) fn visited_since_into(&mut self, from: usize, ids: usize, visited: &mut impl Extend<usize>) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.stamp = 1;
        }
        if self.mark.len() < ids {
            self.mark.resize(ids, 0);
        }
        for &v in &self.log[from..] {
            if self.mark[v] != self.stamp {
                self.mark[v] = self.stamp;
                visited.extend([v]);
            }
        }
    }
}

/// The description of the open object a cut reference becomes: its own `description` (a
/// sibling of the `$ref`), then why it was cut.
pub(crate) fn cut_description(reference: &str, description: Option<&str>, over_budget: bool) -> String {
    cut_description_parts(reference, description, over_budget).into_iter().collect()
}

/// The pieces of [`cut_description`]'s text, in order (for a caller that writes them
/// elsewhere).
pub(crate) fn cut_description_parts<'t>(reference: &'t str, description: Option<&'t str>, over_budget: bool) -> [&'t str; 5] {
    let name = reference.rsplit('/').next().unwrap_or(reference);
    let name = if name.is_empty() || name == "#" { "the root schema" } else { name };
    let (description, space) = match description {
        Some(d) => (d.trim_end(), " "),
        None => ("", ""),
    };
    match over_budget {
        true => [description, space, "(Structure ", name, ": nesting cut here to keep the schema small.)"],
        false => [description, space, "(Recursive structure: ", name, ", same shape as its parent; nesting cut here.)"],
    }
}

pub(crate) fn count_nodes(v: &Value, depth: usize) -> usize {
    if depth > 256 {
        return 1;
    }
    match v {
        Value::Object(o) => 1 + o.values().map(|x| count_nodes(x, depth + 1)).sum::<usize>(),
        Value::Array(a) => a.iter().map(|x| count_nodes(x, depth + 1)).sum::<usize>(),
        _ => 0,
    }
}

/// `share`: whether this position may hold a placeholder (see [`inline_refs_shared`]).
fn resolve(node: &Value, root: &Value, st: &mut State, cx: &mut Cx, share: bool) -> Result<Value> {
    let Value::Object(obj) = node else { return Ok(node.clone()) };
    cx.enter()?;
    let out = resolve_object(obj, root, st, cx, share);
    cx.leave();
    out
}

/// Whether the subschemas of `obj` under `properties` may be shared, and under `items`.
fn shareable_children(obj: &JsonObject) -> (bool, bool) {
    if obj.has("anyOf") || obj.has("oneOf") || obj.has("allOf") {
        return (false, false);
    }
    // An array whose type nothing can change: a node with `enum` or `const` becomes a string,
    // and its `items` is then described, not rewritten.
    let array = obj.find("type").and_then(Value::as_str) == Some("array") && !obj.has("enum") && !obj.has("const");
    (true, array)
}

fn resolve_object(obj: &JsonObject, root: &Value, st: &mut State, cx: &mut Cx, share: bool) -> Result<Value> {
    if let Some(Value::String(reference)) = obj.find("$ref") {
        return resolve_ref(reference, obj, root, st, cx, share);
    }
    // A node with no subschema and no definitions (most nodes: the leaves) is copied as it is;
    // a clone keeps the map's stored hashes where rebuilding it would hash every key again.
    if obj.iter().all(|(key, value)| key != "$defs" && key != "definitions" && slot(key, value) == Slot::None) {
        return Ok(Value::Object(obj.clone()));
    }
    let (share_properties, share_items) = if share { shareable_children(obj) } else { (false, false) };
    let mut out = Map::with_capacity(obj.len());
    for (key, value) in obj {
        if key == "$defs" || key == "definitions" {
            // Only ever a container for reference targets; they are inlined where used.
            continue;
        }
        let new_value = match (slot(key, value), value) {
            (Slot::Map, Value::Object(map)) => {
                let share = share_properties && key == "properties";
                let mut m = Map::with_capacity(map.len());
                cx.at(key, |cx| {
                    for (name, sub) in map {
                        let r = cx.at(name, |cx| resolve(sub, root, st, cx, share))?;
                        if st.stopped {
                            break;
                        }
                        m.insert(name.clone(), r);
                    }
                    Ok(())
                })?;
                Value::Object(m)
            }
            (Slot::Single, _) => {
                let share = share_items && key == "items";
                cx.at(key, |cx| resolve(value, root, st, cx, share))?
            }
            (Slot::Array, Value::Array(items)) => {
                let mut a = Vec::with_capacity(items.len());
                cx.at(key, |cx| {
                    for (i, sub) in items.iter().enumerate() {
                        a.push(cx.at(&i.to_string(), |cx| resolve(sub, root, st, cx, false))?);
                        if st.stopped {
                            break;
                        }
                    }
                    Ok(())
                })?;
                Value::Array(a)
            }
            _ => value.clone(),
        };
        if st.stopped {
            return Ok(Value::Null);
        }
        out.insert(key.clone(), new_value);
    }
    Ok(Value::Object(out))
}

fn resolve_ref<'a>(reference: &'a str, obj: &'a JsonObject, root: &'a Value, st: &mut State, cx: &mut Cx, share: bool) -> Result<Value> {
    let siblings = siblings_of(obj);
    let Some(target) = st.anchors.lookup(root, reference) else {
        cx.problem("refs/unresolvable", format!("$ref \"{reference}\" cannot be resolved locally; removed"));
        let rest = resolve_object(&siblings, root, st, cx, false)?;
        return Ok(rest);
    };
    // A target that is nothing but another reference (an alias, see `alias_of`) is followed here
    // to the schema its chain ends in: as if each hop were resolved inside the one before (the
    // same unrolling, cuts and siblings combined in the same order), but at this level, so that
    // a chain nests no deeper than one reference however long it is. Each hop counts as the node
    // it is. `chain[i]` is a reference and its target; the siblings of the reference of hop
    // `i > 0` are the annotations beside it in the target of hop `i - 1`.
    let mut chain: Vec<(&'a str, &'a Value)> = vec![(reference, target)];
    // The references met on the way, once there is a way (most targets are no alias).
    let mut on_chain: Option<HashSet<&'a str>> = None;
    // The reference that leads back into the chain, if it goes round without reaching a schema.
    let mut looped = None;
    while let Some(next) = alias_of(chain[chain.len() - 1].1) {
        cx.count_node()?;
        if !on_chain.get_or_insert_with(|| HashSet::from([reference])).insert(next) {
            looped = Some(next);
            break;
        }
        // One that leads nowhere is left to the alias holding it, resolved as a node (which
        // reports it).
        let Some(t) = st.anchors.lookup(root, next) else { break };
        chain.push((next, t));
    }
    let end = chain[chain.len() - 1].1;
    let hop_siblings = |i: usize| -> JsonObject {
        match i {
            0 => siblings.clone(),
            _ => chain[i - 1].1.as_object().map(siblings_of).unwrap_or_default(),
        }
    };
    // A target with no subschema (`{type: "string", format: "date"}`, most definitions of an id
    // or a date) costs one node, as the cut would: inlined past the budget too, where a cut
    // would make a string an object.
    let over_budget = cx.nodes() > st.soft_budget && !is_flat(end);
    // Siblings overlay the target: its subschemas then belong to a node this function did not
    // see whole, so nothing below it is shared (nor below an alias with annotations). Nor is a
    // target with draft 3's `required: true`, which the object whose property it is reads
    // (`fix_properties_and_required`), where each copy is.
    let share = share
        && siblings.is_empty()
        && looped.is_none()
        && end.as_object().is_some_and(|t| !matches!(t.find("required"), Some(Value::Bool(_))))
        && cx.shared.is_some()
        && st.log.log.len() <= MAX_LOG;
    let share_below = share && chain[..chain.len() - 1].iter().all(|(_, alias)| alias.as_object().is_some_and(|o| o.keys().all(|k| !is_sibling(k))));
    let (log_before, cut_before, depth_cuts_before) = (st.log.log.len(), st.cut, st.depth_cuts);
    let (unrolled_before, unroll_cuts_before) = (st.unrolled_refs, st.unroll_cuts);
    // Each hop: logged before the decision (whether it is cut depends on the references around
    // it), then cut, or pushed for the hops after it.
    let mut cut_at = None;
    let base = st.stack.len();
    for (i, &(r, _)) in chain.iter().enumerate() {
        let id = st.id(r);
        st.log.log.push(id);
        let seen = st.unrolled(id, root, base);
        // Unrolled again past the unrolling budget: cut as a recursion is.
        let unroll_spent = seen > 0 && cx.nodes() > st.unroll_budget && !is_flat(end);
        if seen >= cx.limits.max_ref_unroll || over_budget || unroll_spent {
            cut_at = Some((i, seen));
            st.unroll_cuts += usize::from(unroll_spent && !over_budget);
            break;
        }
        st.unrolled_refs += usize::from(seen > 0);
        if i == 0 && share {
            if let Some(placeholder) = reuse(id, st, cx, root) {
                return Ok(placeholder);
            }
        }
        st.push(id, i == 0, root);
    }
    let pushed = cut_at.map_or(chain.len(), |(i, _)| i);
    let outcome = match (cut_at, looped) {
        (Some((i, seen)), _) => {
            let r = chain[i].0;
            if over_budget {
                st.cut += 1;
            } else {
                let why = match seen < cx.limits.max_ref_unroll {
                    true => format!(" (the unrolling's size budget of {} schema nodes was spent)", st.unroll_budget),
                    false => String::new(),
                };
                cx.change("refs/recursion-cut", format!("recursive $ref \"{r}\" unrolled {seen} times, then cut to an open object{why}"));
                st.stopped = st.stop_at_recursion;
            }
            let own = hop_siblings(i);
            Ok((open_object(cut_description(r, own.find("description").and_then(Value::as_str), over_budget)), i, None))
        }
        (None, Some(r)) => {
            // No schema at the end, only the way back: nothing to inline, nor to unroll. Where
            // a strict mode stops, its form with references says so (`Chains`).
            cx.problem(
                "refs/unresolvable",
                format!("$ref \"{reference}\" leads through references that never reach a schema (\"{r}\" leads back into them); an open object stands for it"),
            );
            st.stopped = st.stop_at_recursion;
            let own = hop_siblings(chain.len());
            Ok((open_object(loop_description(r, own.find("description").and_then(Value::as_str))), chain.len(), None))
        }
        (None, None) => {
            let before = (cx.changes.len(), cx.problems.len(), st.cut, cx.peak());
            let (resolved, nodes, height) = cx.measured(|cx| resolve(end, root, st, cx, share_below));
            // Expanded here, a recursive reference (one whose target leads back to it) would
            // pass the depth limit: it is cut here instead, to the open object a recursion is
            // cut to, and what the attempt recorded is dropped with it (the nodes it entered
            // stay counted: they bound the work). The innermost such reference around the
            // place the limit was met is cut; a schema that is that deep without recursion is
            // past the limit as before.
            let recursive = match &resolved {
                Err(e) if cx.is_depth_error(e) => (0..chain.len()).find(|&i| st.recursive(chain[i].0, root)),
                _ => None,
            };
            match (resolved, recursive) {
                (Err(_), Some(i)) => {
                    cx.clear_depth_error();
                    st.depth_cuts += 1;
                    cx.changes.truncate(before.0);
                    cx.problems.truncate(before.1);
                    st.cut = before.2;
                    cx.restore_peak(before.3);
                    let r = chain[i].0;
                    cx.change(
                        "refs/recursion-cut",
                        format!("recursive $ref \"{r}\" cut to an open object: expanded here, it would pass the depth limit of {} levels", cx.limits.depth_limit()),
                    );
                    st.stopped = st.stop_at_recursion;
                    let own = hop_siblings(i);
                    Ok((open_object(cut_description(r, own.find("description").and_then(Value::as_str), false)), i, None))
                }
                (resolved, _) => resolved.map(|v| (v, chain.len(), Some((nodes, height)))),
            }
        }
    };
    st.truncate(st.stack.len() - pushed);
    let (mut value, top, measured) = outcome?;
    if st.stopped {
        return Ok(Value::Null);
    }
    // The siblings of each hop combined with what its target gave, innermost first; two
    // descriptions joined apart (the node keeps the first in its place) and put in once.
    let mut joined: Option<JoinedDescriptions> = None;
    for i in (1..top).rev() {
        let mut siblings = hop_siblings(i);
        let own = chain[i - 1].1.get("description").and_then(Value::as_str);
        if let (Some(Value::String(d)), Some(own)) = (value.get("description"), own) {
            siblings.shift_remove("description");
            joined.get_or_insert_with(|| JoinedDescriptions::new(Cow::Owned(d.clone()))).join(own);
        } else if siblings.contains_key("description") {
            // A description that is no string overrides the text joined so far, as it overrides
            // any other: the text is put in first.
            if let (Some(joined), Value::Object(o)) = (joined.take(), &mut value) {
                o.insert("description".owned(), Value::String(joined.text()));
            }
        }
        value = with_siblings(value, siblings, root, st, cx)?;
    }
    if let (Some(joined), Value::Object(o)) = (joined, &mut value) {
        o.insert("description".owned(), Value::String(joined.text()));
    }
    if let (true, Some((nodes, height))) = (share, measured) {
        let id = st.id(reference);
        let visited = st.log.visited_since(log_before, st.ids.len());
        let independent = st.cut == cut_before
            && st.depth_cuts == depth_cuts_before
            && st.unroll_cuts == unroll_cuts_before
            && !st.any_unrolling(&visited, root);
        if let (true, Some(shared)) = (independent, cx.shared.as_mut()) {
            let i = shared.entries.len();
            if let (None, Some(placeholder)) = (shared.entry_for(id), Shared::placeholder_for(i)) {
                shared.entries.push(Entry { expanded: value, nodes, height, visited, unrolls: st.unrolled_refs != unrolled_before, rewritten: None });
                if shared.by_ref.len() <= id {
                    shared.by_ref.resize(id + 1, None);
                }
                shared.by_ref[id] = Some(i);
                return Ok(placeholder);
            }
        }
    }
    with_siblings(value, siblings, root, st, cx)
}

/// The keywords of a node holding a `$ref` that combine with its target.
fn is_sibling(key: &str) -> bool {
    key != "$ref" && key != "$defs" && key != "definitions"
}

/// The siblings of the `$ref` in `obj` ([`is_sibling`]).
fn siblings_of(obj: &JsonObject) -> JsonObject {
    obj.iter().filter(|(k, _)| is_sibling(k)).map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// The reference an alias holds: a schema that is a `$ref` and, beside it, only annotations
/// ([`is_annotation`]: a description, a title, a default...), which combine with what the
/// reference gives as any reference's siblings do (see [`crate::schema::siblings`]).
pub(crate) fn alias_of(target: &Value) -> Option<&str> {
    let o = target.as_object()?;
    match o.find("$ref") {
        Some(Value::String(r)) if o.keys().all(|k| k == "$ref" || is_annotation(k)) => Some(r),
        _ => None,
    }
}

/// The open object a reference that is not inlined becomes, described.
fn open_object(description: String) -> Value {
    let mut cut = Map::new();
    cut.put("type", string("object"));
    cut.put("description", Value::String(description));
    Value::Object(cut)
}

/// The description of the open object that stands for a chain of aliases going round: its own
/// `description` (a sibling of the `$ref`), then what happened.
fn loop_description(reference: &str, description: Option<&str>) -> String {
    let name = reference.rsplit('/').next().filter(|n| !n.is_empty() && *n != "#").unwrap_or("the root schema");
    let mut out = description.map(|d| format!("{} ", d.trim_end())).unwrap_or_default();
    out.push_str(&format!("(No schema: the references through {name} lead back to it without reaching one.)"));
    out
}

/// `resolved` (the target of a reference) combined with the reference's `siblings`.
fn with_siblings(resolved: Value, siblings: JsonObject, root: &Value, st: &mut State, cx: &mut Cx) -> Result<Value> {
    if siblings.is_empty() {
        return Ok(resolved);
    }
    let siblings = match resolve_object(&siblings, root, st, cx, false)? {
        Value::Object(o) => o,
        _ => Map::new(),
    };
    Ok(match resolved {
        // Both hold (2019-09+): combined, not overlaid (see `siblings`).
        Value::Object(target) => Value::Object(crate::schema::siblings::merge(target, siblings, cx)),
        // `true` with siblings is just the siblings; `false` stays `false`.
        Value::Bool(true) => Value::Object(siblings),
        other => other,
    })
}

/// Whether a reference target is a schema without subschemas, references or definitions.
fn is_flat(target: &Value) -> bool {
    target.as_object().is_some_and(|o| o.iter().all(|(k, v)| k != "$ref" && k != "$defs" && k != "definitions" && slot(k, v) == Slot::None))
}

/// A placeholder for the shared expansion of reference `id`, if there is one that gives here
/// what expanding it again would give.
fn reuse(id: usize, st: &mut State, cx: &mut Cx, root: &Value) -> Option<Value> {
    let shared = cx.shared.as_ref()?;
    let i = shared.entry_for(id)?;
    let e = &shared.entries[i];
    let budget = if e.unrolls { st.unroll_budget } else { st.soft_budget };
    let fits = cx.nodes() + e.nodes <= budget && cx.fits(e.nodes, e.height);
    if !fits {
        return None;
    }
    let (nodes, height) = (e.nodes, e.height);
    let visited = std::mem::take(&mut cx.shared.as_mut()?.entries[i].visited);
    let unrolling = st.any_unrolling(&visited, root);
    if let Some(shared) = cx.shared.as_mut() {
        shared.entries[i].visited = visited;
    }
    let shared = cx.shared.as_ref()?;
    if unrolling {
        return None;
    }
    st.log.log.extend_from_slice(&shared.entries[i].visited);
    cx.reuse(nodes, height);
    Shared::placeholder_for(i)
}

/// The reference a schema is and says nothing besides but annotations (an alias, [`alias_of`]):
/// `{"$ref": r}`, `{"$ref": r, "title": ...}`, or that in a one-branch `allOf`, `anyOf` or
/// `oneOf` (`{"allOf": [{"$ref": r}]}`).
pub(crate) fn only_ref(v: &Value) -> Option<&str> {
    if let Some(r) = alias_of(v) {
        return Some(r);
    }
    let o = v.as_object()?;
    let mut combinators = o.iter().filter(|(k, _)| !is_annotation(k));
    match (combinators.next()?, combinators.next()) {
        ((k, Value::Array(b)), None) if b.len() == 1 && matches!(k.as_str(), "allOf" | "anyOf" | "oneOf") => alias_of(&b[0]),
        _ => None,
    }
}

/// Where the chains of references ([`only_ref`]) of one document end, for
/// [`Chains::never_reaches_schema`] asked of many of its references: each reference is followed
/// once, whatever number of chains run through it, so the work is bounded by the document's
/// references, not by their number times a chain's length.
#[derive(Default)]
pub(crate) struct Chains<'a>(HashMap<&'a str, bool>);

impl<'a> Chains<'a> {
    /// Whether `reference` leads through references ([`only_ref`]) that never reach a schema
    /// (`A` to `A`, `A` to `{"allOf": [{"$ref": A}]}`): a loop no validator can follow to an end
    /// (ajv's compiling overflows its stack), found as a reference met again on the way. A chain
    /// however long that ends in a schema (or in a reference that leads nowhere, reported as
    /// such) is none. `root` is the document these chains are of.
    pub(crate) fn never_reaches_schema(&mut self, root: &'a Value, reference: &str) -> bool {
        if let Some(&known) = self.0.get(reference) {
            return known;
        }
        let mut on_the_way: HashSet<&'a str> = HashSet::new();
        let mut next = lookup(root, reference).and_then(only_ref);
        let answer = loop {
            let Some(r) = next else { break false };
            if let Some(&known) = self.0.get(r) {
                break known;
            }
            if !on_the_way.insert(r) {
                break true;
            }
            next = lookup(root, r).and_then(only_ref);
        };
        self.0.extend(on_the_way.into_iter().map(|r| (r, answer)));
        answer
    }
}

/// Reports every `$ref` of a schema sent with its references (not inlined) that leads nowhere
/// in the document: a local one that [`lookup`] does not find, one to another document
/// (`https://...`, `other.json#/x`), which no provider fetches, or one through references that
/// never reach a schema ([`Chains::never_reaches_schema`]). The schema is left as it is.
pub fn report_unresolvable(root: &Value, cx: &mut Cx) {
    fn walk<'a>(node: &'a Value, root: &'a Value, anchors: &mut Anchors, chains: &mut Chains<'a>, cx: &mut Cx, depth: usize) {
        let Value::Object(o) = node else { return };
        if depth > 256 {
            return;
        }
        if let Some(Value::String(r)) = o.find("$ref") {
            if anchors.lookup(root, r).is_none() {
                let why = if r.starts_with('#') { "leads nowhere in the schema" } else { "is to another document, which the provider does not fetch" };
                cx.problem("refs/unresolvable", format!("$ref \"{r}\" {why}: sent as it is, the model has nothing to follow"));
            } else if chains.never_reaches_schema(root, r) {
                cx.problem("refs/unresolvable", format!("$ref \"{r}\" leads through references that never reach a schema: sent as it is, the model has nothing to follow"));
            }
        }
        for (key, value) in o {
            let _ = match (crate::schema::walk::keyword(key), value) {
                (Keyword::Map, Value::Object(m)) => cx.at(key, |cx| {
                    for (name, sub) in m {
                        cx.at(name, |cx| {
                            walk(sub, root, anchors, chains, cx, depth + 1);
                            Ok(())
                        })?;
                    }
                    Ok(())
                }),
                (Keyword::Array | Keyword::Items, Value::Array(a)) => cx.at(key, |cx| {
                    for (i, sub) in a.iter().enumerate() {
                        cx.at(&i.to_string(), |cx| {
                            walk(sub, root, anchors, chains, cx, depth + 1);
                            Ok(())
                        })?;
                    }
                    Ok(())
                }),
                (Keyword::Single | Keyword::Items, Value::Object(_)) => cx.at(key, |cx| {
                    walk(value, root, anchors, chains, cx, depth + 1);
                    Ok(())
                }),
                _ => Ok(()),
            };
        }
    }
    walk(root, root, &mut Anchors::default(), &mut Chains::default(), cx, 0);
}

/// Resolves references by `$id` within the document (JSON Schema 2020-12 §8.2.1, `$id` sets the
/// base URI; §8.2.3.1, a `$ref` is resolved against the base in effect; §9.2, embedded resources
/// are part of the document), so that the rest of the crate, which reads `#` pointers from the
/// root, follows them: a reference to an `$id` of the document (`urn:example:color`,
/// `color.json` under the root's base, the root's own URI) is written as the pointer of that
/// schema, and a `#` reference inside an embedded resource (one with its own `$id`) as the
/// pointer from the root of what it names in that resource. The embedded resources' `$id`s then
/// go, as the references into them and within them no longer need them (left, a `#/…` from the
/// root would be read against them). Each rewrite is a change. A schema with no embedded `$id`
/// and no reference outside `#` is left as it is (one look through it).
pub(crate) fn resolve_ids(root: &mut Value, cx: &mut Cx) {
    #[derive(Default)]
    struct Found {
        embedded_id: bool,
        reference: bool,
        by_uri: bool,
    }
    fn scan(node: &Value, at_root: bool, found: &mut Found, depth: usize) {
        let Value::Object(o) = node else { return };
        if depth > 256 {
            return;
        }
        if !at_root && o.find("$id").and_then(Value::as_str).is_some_and(|id| !id.starts_with('#')) {
            found.embedded_id = true;
        }
        if let Some(Value::String(r)) = o.find("$ref") {
            found.reference = true;
            found.by_uri |= !r.starts_with('#');
        }
        for (key, value) in o {
            match slot(key, value) {
                Slot::Map => value.as_object().into_iter().flat_map(|m| m.values()).for_each(|v| scan(v, false, found, depth + 1)),
                Slot::Single => scan(value, false, found, depth + 1),
                Slot::Array => value.as_array().into_iter().flatten().for_each(|v| scan(v, false, found, depth + 1)),
                Slot::None => {}
            }
        }
    }
    let mut found = Found::default();
    scan(root, true, &mut found, 0);
    if !(found.by_uri || (found.embedded_id && found.reference)) {
        return;
    }
    let root_base = root.get("$id").and_then(Value::as_str).map(|id| without_fragment(id).to_owned()).unwrap_or_default();
    let mut index = HashMap::new();
    if !root_base.is_empty() {
        index.insert(root_base.clone(), String::new());
    }
    index_ids(root, &root_base, &mut String::new(), &mut index, 0);
    let mut at = String::new();
    rewrite_ids(root, &root_base, None, &mut at, &index, cx, 0);
}

/// A URI without its fragment.
fn without_fragment(uri: &str) -> &str {
    uri.split('#').next().unwrap_or_default()
}

/// `reference` resolved against `base` (RFC 3986 §5.2, for the forms schemas use: an absolute
/// URI or URN, a path from the authority's root, a path relative to the base's last segment).
fn resolve_uri(base: &str, reference: &str) -> String {
    let scheme = reference.split_once(':').is_some_and(|(s, _)| !s.is_empty() && !s.contains('/') && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b)));
    if scheme || base.is_empty() || reference.is_empty() {
        return if reference.is_empty() { base.to_owned() } else { reference.to_owned() };
    }
    if let Some(path) = reference.strip_prefix('/') {
        let authority_end = base.find("://").map_or(0, |i| base[i + 3..].find('/').map_or(base.len(), |j| i + 3 + j));
        return format!("{}/{path}", &base[..authority_end]);
    }
    match base.rfind('/') {
        Some(i) => format!("{}{reference}", &base[..=i]),
        None => reference.to_owned(),
    }
}

/// Each embedded resource's URI (resolved, and as written) with its pointer from the root.
fn index_ids(node: &Value, base: &str, at: &mut String, index: &mut HashMap<String, String>, depth: usize) {
    let Value::Object(o) = node else { return };
    if depth > 256 {
        return;
    }
    let mut own = None;
    if depth > 0 {
        if let Some(id) = o.find("$id").and_then(Value::as_str).filter(|id| !id.starts_with('#')) {
            let resolved = resolve_uri(base, without_fragment(id));
            index.entry(resolved.clone()).or_insert_with(|| at.clone());
            index.entry(without_fragment(id).to_owned()).or_insert_with(|| at.clone());
            own = Some(resolved);
        }
    }
    let base = own.as_deref().unwrap_or(base);
    let len = at.len();
    for (key, value) in o {
        crate::text::push_pointer_token(at, key);
        match slot(key, value) {
            Slot::Map => {
                for (name, sub) in value.as_object().into_iter().flatten() {
                    let inner = at.len();
                    crate::text::push_pointer_token(at, name);
                    index_ids(sub, base, at, index, depth + 1);
                    at.truncate(inner);
                }
            }
            Slot::Single => index_ids(value, base, at, index, depth + 1),
            Slot::Array => {
                for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                    let inner = at.len();
                    crate::text::push_pointer_token(at, &i.to_string());
                    index_ids(sub, base, at, index, depth + 1);
                    at.truncate(inner);
                }
            }
            Slot::None => {}
        }
        at.truncate(len);
    }
}

/// Rewrites the references under `node` (at pointer `at`) as [`resolve_ids`] says; `resource`:
/// the `$id` and pointer of the embedded resource `node` is in, if any.
fn rewrite_ids(node: &mut Value, base: &str, resource: Option<(&str, &str)>, at: &mut String, index: &HashMap<String, String>, cx: &mut Cx, depth: usize) {
    let Value::Object(o) = node else { return };
    if depth > 256 {
        return;
    }
    let mut own: Option<(String, String)> = None;
    if depth > 0 {
        if let Some(id) = o.find("$id").and_then(Value::as_str).filter(|id| !id.starts_with('#')).map(str::to_owned) {
            o.remove("$id");
            cx.change("refs/embedded-id", format!("`$id` \"{id}\" of an embedded schema removed: references to it and within it are written from the document's root"));
            own = Some((resolve_uri(base, without_fragment(&id)), id));
        }
    }
    let here = at.clone();
    let (base, resource) = match &own {
        Some((resolved, id)) => (resolved.as_str(), Some((id.as_str(), here.as_str()))),
        None => (base, resource),
    };
    if let Some(Value::String(r)) = o.get_mut("$ref") {
        let written = match r.strip_prefix('#') {
            // Inside an embedded resource, a fragment is of that resource.
            Some(fragment) => match resource {
                Some((_, from)) if fragment.is_empty() || fragment.starts_with('/') => Some(format!("#{from}{fragment}")),
                _ => None,
            },
            None => {
                let (uri, fragment) = r.split_once('#').unwrap_or((r.as_str(), ""));
                let target = index.get(&resolve_uri(base, uri)).or_else(|| index.get(uri));
                target.map(|to| match fragment {
                    f if f.is_empty() || f.starts_with('/') => format!("#{to}{f}"),
                    anchor => format!("#{anchor}"),
                })
            }
        };
        if let Some(new) = written.filter(|new| new != r) {
            let message = match resource {
                Some((id, _)) if r.starts_with('#') => format!("$ref \"{r}\" is of the embedded schema `$id` \"{id}\" it is in: written as \"{new}\", from the document's root"),
                _ => format!("$ref \"{r}\" names a schema of this document by its `$id`: written as \"{new}\""),
            };
            cx.change("refs/id-resolved", message);
            *r = new;
        }
    }
    let len = at.len();
    for (key, value) in o.iter_mut() {
        crate::text::push_pointer_token(at, key);
        let kind = slot(key, value);
        let _ = cx.at(key, |cx| {
            match (kind, value) {
                (Slot::Map, Value::Object(map)) => {
                    for (name, sub) in map.iter_mut() {
                        let inner = at.len();
                        crate::text::push_pointer_token(at, name);
                        cx.at(name, |cx| {
                            rewrite_ids(sub, base, resource, at, index, cx, depth + 1);
                            Ok(())
                        })?;
                        at.truncate(inner);
                    }
                }
                (Slot::Single, sub) => rewrite_ids(sub, base, resource, at, index, cx, depth + 1),
                (Slot::Array, Value::Array(items)) => {
                    for (i, sub) in items.iter_mut().enumerate() {
                        let inner = at.len();
                        let token = i.to_string();
                        crate::text::push_pointer_token(at, &token);
                        cx.at(&token, |cx| {
                            rewrite_ids(sub, base, resource, at, index, cx, depth + 1);
                            Ok(())
                        })?;
                        at.truncate(inner);
                    }
                }
                _ => {}
            }
            Ok(())
        });
        at.truncate(len);
    }
}

/// Looks up a local reference (`#`, `#/a/b`, percent-encoded and `~0`/`~1`-escaped, or `#name`,
/// the subschema whose `$anchor` is `name`).
pub(crate) fn lookup<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        return Some(root);
    }
    if !fragment.starts_with('/') {
        return anchored(root, &percent_decode(fragment, false), 0);
    }
    let decoded = percent_decode(fragment, false);
    pointer(root, &decoded)
}

/// The first subschema (in document order, 64 levels deep at most) whose `$anchor` is `name`.
/// The `$anchor`s of one document, each with the JSON pointer of the subschema [`anchored`]
/// finds for it (the first in document order): built at the first `#name` reference, so a
/// schema with many of them is walked once, not once per reference.
#[derive(Default)]
pub(crate) struct Anchors(Option<HashMap<String, String>>);

impl Anchors {
    /// [`lookup`] in `root`, the document this index is of.
    pub(crate) fn lookup<'a>(&mut self, root: &'a Value, reference: &str) -> Option<&'a Value> {
        let fragment = reference.strip_prefix('#')?;
        if fragment.is_empty() || fragment.starts_with('/') {
            return lookup(root, reference);
        }
        let index = self.0.get_or_insert_with(|| {
            let mut index = HashMap::new();
            index_anchors(root, &mut String::new(), 0, &mut index);
            index
        });
        match index.get(percent_decode(fragment, false).as_str())?.as_str() {
            "" => Some(root),
            at => pointer(root, at),
        }
    }
}

/// Each `$anchor` under `node` (at `path`) with the pointer of the first subschema naming it,
/// in [`anchored`]'s order and to its depth.
fn index_anchors(node: &Value, path: &mut String, depth: usize, out: &mut HashMap<String, String>) {
    if depth > 64 {
        return;
    }
    let len = path.len();
    match node {
        Value::Object(o) => {
            if let Some(Value::String(a)) = o.find("$anchor") {
                out.entry(a.clone()).or_insert_with(|| path.clone());
            }
            for (k, v) in o {
                crate::text::push_pointer_token(path, k);
                index_anchors(v, path, depth + 1, out);
                path.truncate(len);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                path.push('/');
                path.push_str(&i.to_string());
                index_anchors(v, path, depth + 1, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

fn anchored<'a>(node: &'a Value, name: &str, depth: usize) -> Option<&'a Value> {
    if depth > 64 {
        return None;
    }
    match node {
        Value::Object(o) => {
            if o.find("$anchor").and_then(Value::as_str) == Some(name) {
                return Some(node);
            }
            o.values().find_map(|v| anchored(v, name, depth + 1))
        }
        Value::Array(a) => a.iter().find_map(|v| anchored(v, name, depth + 1)),
        _ => None,
    }
}

/// [`Value::pointer`] (RFC 6901), which allocates two strings per token to unescape it: here a
/// token is borrowed unless it holds a `~`.
fn pointer<'a>(root: &'a Value, pointer: &str) -> Option<&'a Value> {
    use std::borrow::Cow;
    let mut target = root;
    for token in pointer.strip_prefix('/')?.split('/') {
        let token = match token.contains('~') {
            true => Cow::Owned(token.replace("~1", "/").replace("~0", "~")),
            false => Cow::Borrowed(token),
        };
        target = match target {
            Value::Object(map) => map.find(&token)?,
            // Array indices as serde_json reads them: no sign, no leading zero.
            Value::Array(list) if !token.starts_with('+') && (token == "0" || !token.starts_with('0')) => {
                list.get(token.parse::<usize>().ok()?)?
            }
            _ => return None,
        };
    }
    Some(target)
}

/// `%XX` escapes decoded (a malformed one is kept as it is); with `plus_is_space` (form-encoded
/// text, a URL's query) a `+` is a space too. Bytes that are not UTF-8 become U+FFFD.
pub(crate) fn percent_decode(s: &str, plus_is_space: bool) -> String {
    if !(s.contains('%') || (plus_is_space && s.contains('+'))) {
        return s.owned();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(if plus_is_space && bytes[i] == b'+' { b' ' } else { bytes[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Limits;
    use serde_json::json;

    fn inline(v: Value) -> (Value, Cx) {
        let mut cx = Cx::new(Limits::default());
        let out = inline_refs(&v, &mut cx).expect("inlines");
        (out, cx)
    }

    /// A hop of an alias chain whose description is no string overrides the text joined so far
    /// (reported as any override is), and a later hop's string overrides it in turn: the text
    /// joined before it was put in at the end over everything, the non-string ignored.
    #[test]
    fn a_description_that_is_no_string_overrides_the_text_joined_along_a_chain() {
        for d1 in ["one", "end"] {
            let schema = json!({"type":"object","properties":{"x":{"$ref":"#/$defs/d0","description":"outer"}},"$defs":{
                "d0":{"$ref":"#/$defs/d1","description":5},
                "d1":{"$ref":"#/$defs/d2","description":d1},
                "d2":{"type":"string","description":"end"}}});
            let (out, _) = inline(schema);
            assert_eq!(out["properties"]["x"], json!({"type":"string","description":"outer"}), "{d1}");
            let (out, _) = inline(json!({"type":"object","properties":{"x":{"$ref":"#/$defs/d0","description":5}},"$defs":{
                "d0":{"$ref":"#/$defs/d1","description":"one"},
                "d1":{"type":"string","description":"end"}}}));
            assert_eq!(out["properties"]["x"]["description"], json!(5), "{d1}");
        }
    }

    /// References by `$id` resolve in the document, and a `#` pointer inside an embedded
    /// resource is of that resource, not of the root (s25e F4): the four shapes of the probe,
    /// through `process_json_schema` (which writes them as pointers) and the inlining.
    #[test]
    fn references_follow_ids() {
        use crate::convert::{convert, convert_json, ConvertOptions};
        use crate::providers::Provider;
        let color = json!({"type":"string","enum":["red","green"]});
        let cases = [
            json!({"type":"object","$defs":{"Color":{"$id":"urn:example:color","type":"string","enum":["red","green"]}},"properties":{"a":{"$ref":"urn:example:color"}}}),
            json!({"$id":"https://example.com/tool.json","type":"object","$defs":{"Color":{"$id":"color.json","type":"string","enum":["red","green"]}},"properties":{"a":{"$ref":"color.json"}}}),
            json!({"$id":"https://example.com/tool.json","type":"object","$defs":{"Color":{"type":"string","enum":["red","green"]}},"properties":{"a":{"$ref":"https://example.com/tool.json#/$defs/Color"}}}),
            json!({"type":"object","$defs":{"X":{"type":"integer"}},"properties":{"a":{"$id":"urn:example:inner","$defs":{"X":{"type":"string","enum":["red","green"]}},"$ref":"#/$defs/X"}}}),
        ];
        for schema in cases {
            let mut cx = Cx::new(Limits::default());
            let (root, _) = crate::schema::process_json_schema(&schema, &mut cx);
            let out = inline_refs(&root, &mut cx).expect("inlines");
            let a = out["properties"]["a"].as_object().unwrap();
            assert_eq!((a.get("type"), a.get("enum")), (Some(&color["type"]), Some(&color["enum"])), "{schema}: {out}");
            assert!(cx.problems.is_empty(), "{schema}: {:?}", cx.problems);
            assert!(cx.changes.iter().any(|d| d.rule == "refs/id-resolved"), "{schema}: {:?}", cx.changes);
        }
        // The JSON API (whose borrowed-tree paths leave such schemas to the general one) gives
        // the same tools, for every provider.
        let tools = json!([{"name":"t","inputSchema":{"type":"object","$defs":{"X":{"type":"integer"}},"properties":{
            "inner":{"$id":"urn:example:inner","$defs":{"X":{"type":"string","enum":["a","b"]}},"type":"object","properties":{"v":{"$ref":"#/$defs/X"}}},
            "c":{"$ref":"urn:example:inner#/$defs/X"}}}}]);
        for provider in [Provider::Gemini, Provider::Vertex, Provider::OpenAi, Provider::Anthropic, Provider::Bedrock] {
            for strict in [false, true] {
                let mut opts = ConvertOptions::default();
                opts.schema.strict = strict;
                let conv = convert(tools.clone(), provider, &opts).unwrap();
                assert_eq!(convert_json(&tools.to_string(), provider, &opts).unwrap(), conv.tools.to_string(), "{provider:?} {strict}");
                let out = conv.tools.to_string();
                // Kept as references, they point into the resource; inlined, they are its `X`.
                assert!(!out.contains("\"$ref\":\"#/$defs/X\"") && !out.contains("urn:"), "{provider:?} {strict}: {out}");
                if matches!(provider, Provider::Gemini | Provider::Vertex) {
                    assert!(!out.contains("INTEGER"), "{provider:?}: {out}");
                }
            }
        }
        // A schema without an embedded `$id` or a reference by URI is left as it was.
        let plain = json!({"$id":"https://example.com/t.json","type":"object","$defs":{"X":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/X"}}});
        let mut cx = Cx::new(Limits::default());
        let (root, _) = crate::schema::process_json_schema(&plain, &mut cx);
        assert_eq!(root["properties"]["a"], json!({"$ref":"#/$defs/X"}));
        assert!(cx.changes.is_empty(), "{:?}", cx.changes);
    }

    #[test]
    fn defs_are_inlined_and_removed() {
        // FastMCP / Pydantic shape (https://github.com/vercel/ai/pull/19141)
        let (out, _) = inline(json!({
            "type":"object","$defs":{"Opt":{"type":"string","enum":["a","b"]}},
            "properties":{"o":{"$ref":"#/$defs/Opt","description":"choice"}}
        }));
        assert_eq!(out, json!({"type":"object","properties":{"o":{"type":"string","enum":["a","b"],"description":"choice"}}}));
    }

    #[test]
    fn json_pointer_into_properties_resolves() {
        // OpenAPI-derived servers (https://github.com/danny-avila/LibreChat/issues/14160)
        let (out, _) = inline(json!({
            "type":"object",
            "properties":{"a":{"type":"array","items":{"type":"integer"}},"b":{"$ref":"#/properties/a/items"}}
        }));
        assert_eq!(out["properties"]["b"], json!({"type":"integer"}));
    }

    #[test]
    fn recursion_is_unrolled_then_cut() {
        let (out, cx) = inline(json!({
            "type":"object","$defs":{"Node":{"type":"object","properties":{"child":{"$ref":"#/$defs/Node"}}}},
            "properties":{"root":{"$ref":"#/$defs/Node"}}
        }));
        let cut = &out["properties"]["root"]["properties"]["child"]["properties"]["child"];
        assert_eq!(cut["type"], "object");
        assert!(cut["description"].as_str().unwrap().contains("Recursive structure: Node"));
        assert_eq!(cx.changes[0].rule, "refs/recursion-cut");
    }

    #[test]
    fn the_strict_inlining_stops_at_the_first_recursive_reference() {
        let recursive = json!({
            "type":"object","$defs":{"Node":{"type":"object","properties":{"child":{"$ref":"#/$defs/Node"}}}},
            "properties":{"root":{"$ref":"#/$defs/Node"},"later":{"$ref":"#/$defs/Missing"}}
        });
        for share in [false, true] {
            let mut cx = Cx::new(Limits::default()).share_refs(share);
            assert_eq!(inline_refs_unless_recursive(&recursive, &mut cx).unwrap(), None);
            assert_eq!(cx.changes.len(), 1, "the cut is recorded once");
            assert_eq!(cx.changes[0].rule, "refs/recursion-cut");
            // What comes after the cut is not expanded: the missing reference is never met.
            assert!(cx.problems.is_empty());
            // Without recursion it is the whole inlining.
            let flat = json!({"type":"object","$defs":{"A":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/A"}}});
            let mut cx = Cx::new(Limits::default()).share_refs(share);
            let whole = inline_refs_shared(&flat, &mut Cx::new(Limits::default()).share_refs(share)).unwrap();
            assert_eq!(inline_refs_unless_recursive(&flat, &mut cx).unwrap(), Some(whole));
        }
        // A limit past the first recursive reference is not reached either.
        let mut deep = json!({"type":"string"});
        for _ in 0..80 {
            deep = json!({"type":"object","properties":{"x":deep}});
        }
        let schema = json!({"type":"object","$defs":{"N":{"type":"object","properties":{"n":{"$ref":"#/$defs/N"}}},"D":deep},
            "properties":{"a":{"$ref":"#/$defs/N"},"b":{"$ref":"#/$defs/D"}}});
        assert!(inline_refs(&schema, &mut Cx::new(Limits::default())).is_err(), "the whole inlining exceeds the depth limit");
        assert_eq!(inline_refs_unless_recursive(&schema, &mut Cx::new(Limits::default())).unwrap(), None);
    }

    #[test]
    fn root_self_reference_terminates() {
        let (out, _) = inline(json!({"type":"object","properties":{"next":{"$ref":"#"}}}));
        assert_eq!(out["properties"]["next"]["properties"]["next"]["properties"]["next"]["type"], "object");
    }

    #[test]
    fn unresolvable_ref_is_removed_and_reported() {
        let (out, cx) = inline(json!({"type":"object","properties":{"a":{"$ref":"#/$defs/Missing","description":"x"}}}));
        assert_eq!(out["properties"]["a"], json!({"description":"x"}));
        assert_eq!(cx.problems[0].rule, "refs/unresolvable");
        assert_eq!(cx.problems[0].path, "/properties/a");
    }

    /// `#name` is the subschema whose `$anchor` is `name`, wherever it stands.
    #[test]
    fn anchors_resolve() {
        let (out, cx) = inline(json!({"type":"object","properties":{"a":{"$ref":"#item"},"b":{"$ref":"#nowhere"}},
            "$defs":{"I":{"$anchor":"item","type":"string","minLength":1}}}));
        assert_eq!(out["properties"]["a"], json!({"$anchor":"item","type":"string","minLength":1}));
        assert_eq!(cx.problems.iter().map(|d| d.path.as_str()).collect::<Vec<_>>(), ["/properties/b"], "{:?}", cx.problems);
        // On every path: Gemini's `parameters` from the JSON API (the borrowed tree leaves
        // anchors to the general inlining) as with a report.
        let tools = json!([{"name":"t","inputSchema":{"type":"object","properties":{"a":{"$ref":"#item"}},"$defs":{"I":{"$anchor":"item","type":"string"}}}}]);
        for provider in [crate::providers::Provider::Gemini, crate::providers::Provider::OpenAi] {
            let mut opts = crate::convert::ConvertOptions::default();
            opts.schema.strict = true;
            let general = crate::convert::convert(tools.clone(), provider, &opts).unwrap();
            let text = crate::convert::convert_json(&tools.to_string(), provider, &opts).unwrap();
            assert_eq!(text, general.tools.to_string(), "{provider:?}");
            assert!(general.report.tools[0].problems.is_empty(), "{provider:?}: {:?}", general.report.tools[0].problems);
            assert!(text.to_lowercase().contains(r#""a":{"type":"string""#) || text.contains(r#""a":{"type":["string","null"]}"#), "{provider:?}: {text}");
        }
    }

    #[test]
    fn pointers_resolve_as_serde_json_resolves_them() {
        let doc = json!({"a/b": {"t~x": [10, 11, {"": 12}]}, "list": [0, 1], "~1": 2, "": {"": 3}});
        for p in [
            "", "/", "//", "/a~1b", "/a~1b/t~0x", "/a~1b/t~0x/1", "/a~1b/t~0x/2/", "/a~1b/t~0x/01", "/a~1b/t~0x/+1",
            "/a~1b/t~0x/-1", "/a~1b/t~0x/3", "/list/0", "/list/00", "/list/1/x", "/~01", "/~1", "/a/b", "nope", "/a~1b/t~0x/9999999999999999999999",
        ] {
            assert_eq!(pointer(&doc, p).or((p.is_empty()).then_some(&doc)), doc.pointer(p), "{p:?}");
        }
    }

    #[test]
    fn property_named_ref_is_a_property() {
        let input = json!({"type":"object","properties":{"$ref":{"type":"string"},"$defs":{"type":"string"}}});
        let (out, _) = inline(input.clone());
        assert_eq!(out, input);
    }

    #[test]
    fn fan_out_is_cut_by_the_expansion_budget() {
        // Each level references the next one twice: 2^20 nodes if expanded naively.
        let mut defs = Map::new();
        for i in 0..20 {
            defs.insert(
                format!("L{i}"),
                json!({"type":"object","properties":{"a":{"$ref":format!("#/$defs/L{}", i + 1)},"b":{"$ref":format!("#/$defs/L{}", i + 1)}}}),
            );
        }
        defs.insert("L20".into(), json!({"type":"string"}));
        let schema = json!({"type":"object","$defs":defs,"properties":{"x":{"$ref":"#/$defs/L0"}}});
        let mut cx = Cx::new(Limits::default());
        let out = inline_refs(&schema, &mut cx).unwrap();
        assert!(count_nodes(&out, 0) < 20_000, "expansion stays bounded");
        assert!(cx.changes.iter().any(|c| c.rule == "refs/expansion-cut"));
    }

    /// Past the budget, a reference to a schema without subschemas (an id, a date) is still
    /// inlined: it costs what a cut costs, and a cut would make a string an object. Through
    /// both paths (the Gemini conversion reads the borrowed tree, strict mode the `Value`).
    #[test]
    fn flat_targets_are_inlined_past_the_budget() {
        let fields: Map<String, Value> = (0..30).map(|i| (format!("f{i}"), json!({"$ref": "#/$defs/Id"}))).collect();
        let root: Map<String, Value> = (0..100).map(|i| (format!("o{i}"), json!({"$ref": "#/$defs/Obj"}))).collect();
        let schema = json!({"type":"object","properties":root,"$defs":{"Id":{"type":"string","description":"an id"},"Obj":{"type":"object","properties":fields}}});
        let mut cx = Cx::new(Limits::default());
        let out = inline_refs(&schema, &mut cx).unwrap();
        assert!(cx.changes.iter().any(|c| c.rule == "refs/expansion-cut"), "the budget was spent");
        let (mut objects_cut, mut ids) = (0, 0);
        for o in out["properties"].as_object().unwrap().values() {
            match o["properties"].as_object() {
                Some(fields) => {
                    for f in fields.values() {
                        assert_eq!(f, &json!({"type":"string","description":"an id"}));
                        ids += 1;
                    }
                }
                None => objects_cut += 1,
            }
        }
        assert!(objects_cut > 0 && ids > 0, "{objects_cut} {ids}");
        let tools = json!([{"name": "t", "inputSchema": schema}]).to_string();
        let text = crate::convert::convert_json(&tools, crate::providers::Provider::Gemini, &Default::default()).unwrap();
        assert!(!text.contains("(Structure Id"), "an Id was cut");
        assert!(text.contains("(Structure Obj"), "the budget was spent");
        // Strict mode would close the open objects a cut leaves, which then take nothing but
        // `{}`: OpenAI's keeps the references instead, strict; Anthropic's sends the schema as
        // it is, without strict, saying that the budget is why.
        let mut opts = crate::convert::ConvertOptions::default();
        opts.schema.strict = true;
        let report = crate::convert::check_json(&tools, crate::providers::Provider::OpenAi, &opts).unwrap();
        assert_eq!(report.tools[0].strict, Some(true), "{:?}", report.tools[0].problems);
        assert!(report.tools[0].changes.iter().any(|d| d.rule == "openai/strict-defs" && d.message.contains("expansion budget")));
        let report = crate::convert::check_json(&tools, crate::providers::Provider::Anthropic, &opts).unwrap();
        let fallback = report.tools[0].problems.iter().find(|d| d.rule == "anthropic/strict-fallback").expect("not strict");
        assert!(fallback.message.contains("expansion budget"), "{}", fallback.message);
    }

    #[test]
    fn shared_expansions_stand_as_placeholders_where_they_are_the_same() {
        let user = json!({"type":"object","properties":{"id":{"type":"string"}}});
        let schema = json!({
            "type":"object",
            "$defs":{"U":user,"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N"}}}},
            "properties":{
                "a":{"$ref":"#/$defs/U"},"b":{"$ref":"#/$defs/U"},
                "c":{"anyOf":[{"$ref":"#/$defs/U"},{"type":"null"}]},
                "d":{"type":"array","items":{"$ref":"#/$defs/U"}},
                "e":{"$ref":"#/$defs/U","description":"with a sibling"},
                "f":{"$ref":"#/$defs/N"},"g":{"$ref":"#/$defs/N"}
            }
        });
        let mut cx = Cx::new(Limits::default()).share_refs(true);
        let out = inline_refs_shared(&schema, &mut cx).unwrap();
        let shared = cx.shared.as_ref().expect("sharing was allowed");
        let placeholder = |v: &Value| v.as_object().and_then(Shared::placeholder);
        let props = &out["properties"];
        // Under properties and an array's items: one entry, used three times.
        assert_eq!(placeholder(&props["a"]), Some(0));
        assert_eq!(placeholder(&props["b"]), Some(0));
        assert_eq!(placeholder(&props["d"]["items"]), Some(0));
        assert_eq!(shared.expanded(0), user);
        // Under anyOf, and with siblings, the expansion is written out.
        assert_eq!(props["c"]["anyOf"][0], user);
        assert_eq!(props["e"]["description"], "with a sibling");
        assert_eq!(props["e"]["properties"], user["properties"]);
        // A recursive target is shared as a whole; its inner copies depend on the references
        // around them and are expanded (then cut) inside it.
        assert_eq!(placeholder(&props["f"]), Some(1));
        assert_eq!(placeholder(&props["g"]), Some(1));
        let n = shared.expanded(1);
        assert!(placeholder(&n["properties"]["next"]).is_none());
        assert!(n["properties"]["next"]["properties"]["next"]["description"].as_str().unwrap().contains("Recursive structure: N"));
        // Without share_refs, everything is expanded in place.
        let mut cx = Cx::new(Limits::default());
        let full = inline_refs_shared(&schema, &mut cx).unwrap();
        assert!(cx.shared.is_none());
        assert_eq!(full["properties"]["b"], user);
        assert_eq!(full["properties"]["g"]["properties"]["next"], n["properties"]["next"]);
    }

    #[test]
    fn deep_ref_chains_hit_the_depth_limit() {
        let mut defs = Map::new();
        for i in 0..100 {
            defs.insert(format!("L{i}"), json!({"type":"object","properties":{"a":{"$ref":format!("#/$defs/L{}", i + 1)}}}));
        }
        let schema = json!({"type":"object","$defs":defs,"properties":{"x":{"$ref":"#/$defs/L0"}}});
        let mut cx = Cx::new(Limits::default());
        let err = inline_refs(&schema, &mut cx).unwrap_err();
        assert_eq!(err.code, crate::error::ErrorCode::LimitExceeded);
    }

    /// `a0 → a1 → … → a{hops}` (each a reference and nothing else), the last `end`.
    fn alias_chain(hops: usize, end: Value) -> Value {
        let mut defs: Map<String, Value> = (0..hops).map(|i| (format!("a{i}"), json!({"$ref": format!("#/$defs/a{}", i + 1)}))).collect();
        defs.insert(format!("a{hops}"), end);
        json!({"type":"object","$defs":defs,"properties":{"x":{"$ref":"#/$defs/a0"}}})
    }

    /// A chain of aliases is followed at the level of its first reference: however long, it
    /// nests as deep as one reference does, within a depth limit of 4.
    #[test]
    fn alias_chains_nest_as_one_reference() {
        let end = json!({"type":"object","properties":{"q":{"type":"string"}}});
        for hops in [1, 63, 200, 5_000] {
            let mut cx = Cx::new(Limits { max_depth: 4, ..Limits::default() });
            let out = inline_refs(&alias_chain(hops, end.clone()), &mut cx).unwrap();
            assert_eq!(out["properties"]["x"], end, "{hops}");
            assert!(cx.changes.is_empty() && cx.problems.is_empty(), "{hops}: {:?} {:?}", cx.changes, cx.problems);
        }
        // Each hop is a node of the budget: the work stays bounded.
        let mut cx = Cx::new(Limits { max_nodes: 1_000, ..Limits::default() });
        assert_eq!(inline_refs(&alias_chain(5_000, end.clone()), &mut cx).unwrap_err().code, crate::error::ErrorCode::LimitExceeded);
        // A recursion through a chain is unrolled and cut as any other.
        let node = json!({"type":"object","properties":{"child":{"$ref":"#/$defs/a0"}}});
        let (out, cx) = inline(alias_chain(30, node));
        let cut = &out["properties"]["x"]["properties"]["child"]["properties"]["child"];
        assert!(cut["description"].as_str().unwrap().contains("Recursive structure: a0"), "{out}");
        assert_eq!(cx.changes.iter().map(|d| d.rule).collect::<Vec<_>>(), ["refs/recursion-cut"]);
    }

    /// Aliases that go round without reaching a schema: an open object that says so, reported;
    /// the strict inlining stops there.
    #[test]
    fn alias_loops_are_found_not_unrolled() {
        for hops in [1, 2, 40] {
            let defs: Map<String, Value> = (0..hops).map(|i| (format!("a{i}"), json!({"$ref": format!("#/$defs/a{}", (i + 1) % hops), "title": "t"}))).collect();
            let schema = json!({"type":"object","$defs":defs,"properties":{"x":{"$ref":"#/$defs/a0","description":"the x"}}});
            let (out, cx) = inline(schema.clone());
            let x = &out["properties"]["x"];
            assert_eq!(x["type"], "object");
            assert!(x["description"].as_str().unwrap().starts_with("the x"), "{x}");
            assert!(x["description"].as_str().unwrap().contains("No schema"), "{x}");
            assert_eq!(cx.problems.iter().map(|d| (d.rule, d.path.as_str())).collect::<Vec<_>>(), [("refs/unresolvable", "/properties/x")]);
            assert_eq!(inline_refs_unless_recursive(&schema, &mut Cx::new(Limits::default())).unwrap(), None, "{hops}");
        }
    }

    /// The anchor index finds what a walk per reference finds (the first subschema in
    /// document order, under keys that need escaping, in arrays, the root itself), and walks
    /// the document once for any number of references.
    #[test]
    fn anchor_index_agrees_with_the_walk() {
        let doc = json!({"$anchor": "top", "$defs": {"a/b~c": {"$anchor": "esc", "type": "string"},
            "list": {"anyOf": [{"type": "integer"}, {"$anchor": "in-array", "type": "boolean"}]},
            "first": {"$anchor": "dup", "type": "number"}, "second": {"$anchor": "dup", "type": "null"},
            "sp": {"$anchor": "with space", "type": "string"}}});
        let mut anchors = Anchors::default();
        for r in ["#top", "#esc", "#in-array", "#dup", "#with%20space", "#missing", "#/$defs/first", "#", "other.json#x"] {
            assert_eq!(anchors.lookup(&doc, r), lookup(&doc, r), "{r}");
        }
        let index = anchors.0.as_ref().unwrap();
        assert_eq!(index.len(), 5);
        assert_eq!(index["dup"], "/$defs/first");
        assert_eq!(index["esc"], "/$defs/a~1b~0c");
    }
}
