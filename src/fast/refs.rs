//! `$ref` inlining on the borrowed tree.
//!
//! The general path reads a schema with references into a [`Value`](serde_json::Value) and
//! inlines them there ([`crate::schema::refs`]: every expansion a copy, every key an owned
//! string and a hash). This module does the same inlining on the [`Node`] tree instead: an
//! unchanged subtree is the input's own slice, not a copy, and what it builds lives in an arena.
//! It serves three uses, for conversions the pass-through path takes:
//!
//! - Gemini `parameters` ([`lower`]): inlined with shared expansions left as placeholders
//!   (`refs::inline_refs_shared`), then lowered with each expansion lowered once and spliced in.
//! - Gemini `parametersJsonSchema` ([`inline_expanded`]): the tree read through the
//!   placeholders (`refs::inline_refs`), each shared expansion one subtree that every place
//!   points to.
//! - The strict modes ([`strict_inlining`]): the inlining of the non-strict form, stopping at
//!   the first recursive reference it cuts (`refs::inline_refs_unless_recursive`).
//!
//! It is a port of `refs::inline`, step for step: the same references in the same order, the
//! same expansion budget, unrolling and cuts, the same shared expansions under the same numbers,
//! and the same node and depth counts, so the tree it gives is the general path's and the text
//! written from it the same byte for byte. It takes only schemas on which the steps before the
//! inlining (`process_json_schema`, `merge_root_combinators`) do nothing: an object root with
//! no root `$ref` and no root combinator (and with `properties`, but for the strict modes, whose
//! budget is counted on the non-strict form). Anything it does not take the same way (a limit
//! reached, a reference with `%` or `~` to decode) sends the schema the general way, whose errors
//! stay the same. The tests compare the trees and the outputs.

use std::collections::HashMap;

use bumpalo::collections::{String as ArenaString, Vec as List};
use bumpalo::Bump;

use super::gemini;
use super::{Levels, Node, Splicing, Text};
use crate::model::{NamePositions, NameSet};
use crate::schema::refs::{cut_description_parts, RefLog, Shared, Unrolling, MAX_LOG};
use crate::schema::siblings::JoinedDescriptions;
use crate::schema::walk::{head, head_of, keyword, Keyword};
use crate::schema::Limits;

/// Gemini `parameters` for a schema with references, as [`gemini::lower_root`] gives them
/// (`levels` fresh): inlined in `arena`, then lowered with the shared expansions spliced in.
/// `objects`: the schema's [`count_nodes`], when the reader counted them. `None` sends the
/// schema the general way.
#[inline(never)]
pub(crate) fn lower<'s>(root: &'s Node<'s>, objects: Option<usize>, arena: &'s Bump, levels: &mut Levels<'s>) -> Option<Option<gemini::Parameters<'s>>> {
    let inlined = inline_counted(root, objects, arena, levels.limits, false)?;
    let expansions = arena.alloc_slice_fill_iter(inlined.expansions);
    levels.splicing = Some(Splicing::new(expansions));
    gemini::lower_root(arena.alloc(inlined.root), levels, arena)
}

/// A schema with its references inlined, and the expansions its placeholders stand for.
pub(crate) struct Inlined<'s> {
    pub(crate) root: Node<'s>,
    pub(crate) expansions: Vec<Node<'s>>,
    /// Whether the general path's inlining records nothing: no cut, no unresolvable reference.
    pub(crate) quiet: bool,
}

/// Gemini `parametersJsonSchema` for a schema with references (`levels` fresh), as the general
/// path writes it: inlined with shared expansions, accepted by `is_clean` with each expansion
/// walked once and counted wherever it is used, and written with each expansion written once
/// and copied in wherever it is used. `None` as for [`inline`], when `is_clean` refuses, or
/// when the general path would record something (`quiet`, see [`Inlined`]) and a report is kept.
#[inline(never)]
pub(crate) fn write_json_schema<'s>(
    root: &'s Node<'s>,
    arena: &'s Bump,
    levels: &mut Levels<'s>,
    with_report: bool,
    buffer: &mut Vec<u8>,
) -> Option<Vec<u8>> {
    let inlined = inline(root, arena, levels.limits).filter(|i| i.quiet || !with_report)?;
    let expansions = arena.alloc_slice_fill_iter(inlined.expansions);
    levels.splicing = Some(Splicing::new(expansions));
    let root = arena.alloc(inlined.root);
    if !super::is_clean(root, levels) {
        return None;
    }
    Some(super::written(buffer, |out| root.write_spliced(out, &mut Some((expansions, Vec::new())))))
}

/// `refs::inline_refs`: the tree [`inline`] gives, read through its placeholders, each shared
/// expansion one subtree that every place using it points to.
/// `$defs` or `definitions` (a map keyword: the caller has classed it).
fn is_definitions(key: &str) -> bool {
    key == "$defs" || key == "definitions"
}

/// Whether `a` and `b` are the same string, number, boolean or `null`.
fn same_scalar(a: &Node<'_>, b: &Node<'_>) -> bool {
    match (a, b) {
        (Node::Str(x), Node::Str(y)) => x.as_str() == y.as_str(),
        (Node::Num(x), Node::Num(y)) => x == y,
        (Node::Bool(x), Node::Bool(y)) => x == y,
        (Node::Null, Node::Null) => true,
        _ => false,
    }
}

/// `schema::refs::is_flat` on the borrowed tree: an object with no subschema, `$ref` or
/// definitions.
fn is_flat(target: &Node<'_>) -> bool {
    let Node::Obj(entries) = target else { return false };
    entries.iter().all(|(k, v)| {
        *k != "$ref"
            && match (keyword(k), v) {
                (Keyword::Map, _) if is_definitions(k) => false,
                (Keyword::Map, Node::Obj(_)) | (Keyword::Array | Keyword::Items, Node::Arr(_)) => false,
                (Keyword::Single | Keyword::Items, v) => !v.is_schema(),
                _ => true,
            }
    })
}

/// `refs::alias_of` on the borrowed tree: the reference `target` holds when it is a `$ref` with
/// only annotations beside it.
fn alias_of<'s>(target: &Node<'s>) -> Option<&'s str> {
    let Node::Obj(entries) = target else { return None };
    let reference = entries.iter().find(|(k, _)| *k == "$ref").map(|(_, v)| v)?;
    match reference {
        Node::Str(r) if entries.iter().all(|(k, _)| *k == "$ref" || crate::schema::is_annotation(k)) => Some(r.as_str()),
        _ => None,
    }
}

#[cfg(test)]
fn inline_expanded<'s>(root: &'s Node<'s>, arena: &'s Bump, limits: Limits) -> Option<Node<'s>> {
    inline_counted(root, None, arena, limits, true).map(|i| i.root)
}

/// `refs::inline_refs_shared` on a schema that reaches it unchanged (see the module's doc), or
/// `None`. Also `None` when the schema holds no reference the general path would inline
/// (`walk::contains_ref`): it is then not inlined at all.
pub(crate) fn inline<'s>(root: &'s Node<'s>, arena: &'s Bump, limits: Limits) -> Option<Inlined<'s>> {
    inline_counted(root, None, arena, limits, false)
}

/// [`inline`], with the root's [`count_nodes`] when it is known (`objects`); `expand`: each
/// shared expansion in the places of its placeholders.
fn inline_counted<'s>(root: &'s Node<'s>, objects: Option<usize>, arena: &'s Bump, limits: Limits, expand: bool) -> Option<Inlined<'s>> {
    if !matches!(root.get("properties"), Some(Node::Obj(_))) {
        return None;
    }
    debug_assert!(objects.is_none_or(|n| n == count_nodes(root, 0)), "the reader's count is count_nodes");
    let mut st = State::new(root, arena, limits, objects.unwrap_or_else(|| count_nodes(root, 0)))?;
    st.expand = expand;
    let root = st.resolve(root, true)?;
    let quiet = st.quiet();
    Some(Inlined { root, expansions: st.entries.into_iter().map(|e| e.expanded).collect(), quiet })
}

/// What the strict modes' inlining does with a schema.
pub(crate) enum StrictInlining<'s> {
    /// It stops at a recursive reference: the schema cannot be strict.
    Stops,
    /// It inlines every reference with nothing to record: the tree, as [`inline_expanded`].
    Inlined(Node<'s>),
    /// Anything else: the general path decides.
    Undecided,
}

/// The strict modes' inlining (`refs::inline_refs_unless_recursive`, on the schema's
/// non-strict form, whose objects `base_objects` counts) of a schema `is_clean` accepted: the
/// inlining here, stopping where that one stops. A limit, a cut for the budget or a reference
/// that does not resolve here leave it [`StrictInlining::Undecided`] (unless a recursive
/// reference stops it first).
pub(crate) fn strict_inlining<'s>(root: &'s Node<'s>, arena: &'s Bump, limits: Limits, base_objects: usize) -> StrictInlining<'s> {
    let Some(mut st) = State::new(root, arena, limits, base_objects) else { return StrictInlining::Undecided };
    (st.stop, st.expand) = (true, true);
    match st.resolve(root, true) {
        _ if st.stopped => StrictInlining::Stops,
        // A tree grown past `refs::grown` may keep its references instead (OpenAI's `$defs`):
        // the general path decides.
        Some(tree) if st.quiet() && !crate::schema::refs::grown(st.nodes, base_objects) => StrictInlining::Inlined(tree),
        _ => StrictInlining::Undecided,
    }
}

/// `walk::contains_ref`.
fn contains_ref(node: &Node, depth: usize) -> bool {
    if depth > 512 {
        return true;
    }
    let Node::Obj(entries) = node else { return false };
    entries.iter().any(|(k, v)| {
        *k == "$ref"
            || match (keyword(k), v) {
                (Keyword::Map, Node::Obj(map)) => map.iter().any(|(_, sub)| contains_ref(sub, depth + 1)),
                (Keyword::Array | Keyword::Items, Node::Arr(items)) => items.iter().any(|sub| contains_ref(sub, depth + 1)),
                (Keyword::Single | Keyword::Items, Node::Obj(_)) => contains_ref(v, depth + 1),
                _ => false,
            }
    })
}

/// `refs::count_nodes`: the objects of a JSON value, those past 256 levels counted as one.
pub(crate) fn count_nodes(node: &Node, depth: usize) -> usize {
    if depth > 256 {
        return 1;
    }
    match node {
        Node::Obj(entries) => 1 + entries.iter().map(|(_, v)| count_nodes(v, depth + 1)).sum::<usize>(),
        Node::Arr(items) => items.iter().map(|v| count_nodes(v, depth + 1)).sum::<usize>(),
        _ => 0,
    }
}

/// Where a reference leads.
enum Target<'n, 'a> {
    Found(&'n Node<'a>),
    /// `refs::lookup` finds nothing there.
    Missing,
    /// A reference with `%` or `~`, which the general path decodes first, or to an `$anchor`.
    Undecided,
}

/// `refs::lookup` for the references it reads without decoding (`#` and `#/a/b` with no `%`
/// or `~`), in one document (`root`). An object of more than [`NameSet::FEW`] members (most
/// often `$defs`) is indexed by name the first time a pointer passes through it, so that a
/// schema with thousands of definitions, each a reference to another, looks each one up in a
/// step rather than comparing its name with all the others (as the general path's map finds
/// it). Also keeps where chains of references end ([`Pointers::never_reaches_schema`]).
struct Pointers<'n, 'a> {
    root: &'n Node<'a>,
    /// Each large object's members by name (the first of a name, as a scan finds it): the
    /// index of the table by the address of its entries, and in the table the member's index.
    members: HashMap<usize, usize>,
    tables: Vec<NamePositions<'n>>,
    /// [`Pointers::hops`], by the address of the node a chain starts from ([`usize::MAX`]:
    /// none).
    hops: HashMap<usize, usize>,
}

impl<'n, 'a> Pointers<'n, 'a> {
    fn new(root: &'n Node<'a>) -> Self {
        Pointers { root, members: HashMap::new(), tables: Vec::new(), hops: HashMap::new() }
    }

    /// Where `reference` leads.
    fn lookup(&mut self, reference: &str) -> Target<'n, 'a> {
        let Some(fragment) = reference.strip_prefix('#') else { return Target::Missing };
        if fragment.is_empty() {
            return Target::Found(self.root);
        }
        // `#name` (an `$anchor`): found by the general path.
        let Some(pointer) = fragment.strip_prefix('/') else { return Target::Undecided };
        if fragment.contains(['%', '~']) {
            return Target::Undecided;
        }
        let mut target = self.root;
        for token in pointer.split('/') {
            let next = match target {
                Node::Obj(entries) if entries.len() > NameSet::FEW => {
                    let tables = &mut self.tables;
                    let table = *self.members.entry(entries.as_ptr() as usize).or_insert_with(|| {
                        tables.push(NamePositions::of(entries.iter().map(|(k, _)| k.as_str())));
                        tables.len() - 1
                    });
                    self.tables[table].position(token).map(|i| &entries[i].1)
                }
                Node::Obj(entries) => {
                    #[cfg(test)]
                    crate::model::NAME_STEPS.with(|s| s.set(s.get() + entries.len()));
                    entries.iter().find(|(k, _)| *k == token).map(|(_, v)| v)
                }
                Node::Arr(items) if !token.starts_with('+') && (token == "0" || !token.starts_with('0')) => {
                    token.parse::<usize>().ok().and_then(|i| items.get(i))
                }
                _ => None,
            };
            match next {
                Some(n) => target = n,
                None => return Target::Missing,
            }
        }
        Target::Found(target)
    }

    /// `refs::Chains::never_reaches_schema` from a reference's `target`: whether it is nothing
    /// but references (`refs::only_ref`) that never reach a schema; `true` too where one is not
    /// looked up here, and for a chain of 64 or more, which the general way follows to its end.
    fn never_reaches_schema(&mut self, target: &'n Node<'a>) -> bool {
        self.hops(target).is_none_or(|h| h >= 64)
    }

    /// How many references (`refs::only_ref`) lead from `target` to a schema, or `None` when
    /// they reach none here (one not found or not looked up here, or a loop). Each node of a
    /// chain is followed once for all the chains through it.
    fn hops(&mut self, target: &'n Node<'a>) -> Option<usize> {
        let address = |node: &Node| std::ptr::from_ref(node) as usize;
        let mut on_the_way: Vec<usize> = Vec::new();
        let mut node = target;
        let end = loop {
            if let Some(&known) = self.hops.get(&address(node)) {
                break known;
            }
            let Some(next) = only_ref(node) else { break 0 };
            #[cfg(test)]
            crate::model::NAME_STEPS.with(|s| s.set(s.get() + 1));
            // Met again before its answer is known: a loop (marked as reaching none).
            self.hops.insert(address(node), usize::MAX);
            on_the_way.push(address(node));
            match self.lookup(next) {
                Target::Found(t) => node = t,
                _ => break usize::MAX,
            }
        };
        let mut answer = end;
        for node in on_the_way.into_iter().rev() {
            answer = answer.saturating_add(1);
            self.hops.insert(node, answer);
        }
        (answer != usize::MAX).then_some(answer)
    }
}

/// `refs::only_ref` on the borrowed tree: an alias, or one in a one-branch `allOf`, `anyOf` or
/// `oneOf` beside annotations only.
fn only_ref<'s>(node: &Node<'s>) -> Option<&'s str> {
    if let Some(r) = alias_of(node) {
        return Some(r);
    }
    let Node::Obj(entries) = node else { return None };
    let mut branch = None;
    for (k, v) in entries.iter() {
        match (k.as_str(), v) {
            ("allOf" | "anyOf" | "oneOf", Node::Arr([b])) if branch.is_none() => branch = Some(b),
            (k, _) if crate::schema::is_annotation(k) => {}
            _ => return None,
        }
    }
    alias_of(branch?)
}

/// Whether every `$ref` of the tree leads somewhere in it (as `refs::lookup` finds it): where
/// one may not, a conversion with a report goes the general way, which reports it
/// (`refs::report_unresolvable`).
pub(crate) fn all_found<'n, 'a>(root: &'n Node<'a>) -> bool {
    fn walk<'n, 'a>(node: &'n Node<'a>, pointers: &mut Pointers<'n, 'a>, depth: usize) -> bool {
        let Node::Obj(entries) = node else {
            return match node {
                Node::Arr(items) => depth > 1024 || items.iter().all(|n| walk(n, pointers, depth + 1)),
                _ => true,
            };
        };
        if depth > 1024 {
            return true;
        }
        entries.iter().all(|(k, v)| match (k.as_str(), v) {
            ("$ref", Node::Str(r)) => matches!(pointers.lookup(r), Target::Found(t) if !pointers.never_reaches_schema(t)),
            _ => walk(v, pointers, depth + 1),
        })
    }
    walk(root, &mut Pointers::new(root), 0)
}

/// `refs::refs_under` on the borrowed tree.
fn refs_under<'s>(node: &Node<'s>, skip_definitions: bool, out: &mut Vec<&'s str>, depth: usize) {
    match node {
        Node::Obj(entries) if depth <= 256 => {
            // By the value's kind first: most are strings, numbers and booleans, with no key to
            // compare.
            for (k, v) in entries.iter() {
                match v {
                    Node::Str(r) if k.as_str() == "$ref" => out.push(r.as_str()),
                    Node::Obj(_) | Node::Arr(_) if skip_definitions && matches!(k.as_str(), "$defs" | "definitions") => {}
                    Node::Obj(_) | Node::Arr(_) => refs_under(v, skip_definitions, out, depth + 1),
                    _ => {}
                }
            }
        }
        Node::Arr(items) if depth <= 256 => items.iter().for_each(|v| refs_under(v, skip_definitions, out, depth + 1)),
        _ => {}
    }
}

/// `refs::reference_components` on the borrowed tree; `None` when a reference is one [`lookup`]
/// leaves to the general path (its recursions might differ).
fn reference_components<'s>(pointers: &mut Pointers<'s, 's>) -> Option<HashMap<&'s str, usize>> {
    let mut seeds = Vec::new();
    refs_under(pointers.root, true, &mut seeds, 0);
    crate::schema::refs::reachable_components(seeds, |r| {
        let mut out = Vec::new();
        match pointers.lookup(r) {
            Target::Found(t) => refs_under(t, true, &mut out, 0),
            Target::Missing => {}
            Target::Undecided => return None,
        }
        Some(out)
    })
}

/// `refs::State`, with `Cx`'s counters and `refs::Shared`'s entries.
struct State<'s> {
    arena: &'s Bump,
    limits: Limits,
    soft_budget: usize,
    /// `refs::State::unroll_budget`, `unrolled_refs`, `unroll_cuts`.
    unroll_budget: usize,
    unrolled_refs: usize,
    unroll_cuts: usize,
    /// The references being expanded, outermost first (ids).
    stack: Vec<usize>,
    /// `refs::State::first_hop`.
    first_hop: Vec<bool>,
    /// `refs::State::unrolling`.
    unrolling: Option<Unrolling>,
    cut: usize,
    /// Where references lead.
    pointers: Pointers<'s, 's>,
    /// Each reference found so far, by its id (numbered in the order found), and the node it
    /// leads to by id: looked up once, since a lookup compares its path's names one by one.
    ids: HashMap<&'s str, usize>,
    targets: Vec<&'s Node<'s>>,
    /// Each reference by id, and its recursion (`refs::reference_components`) once known:
    /// `None` inside when a reference of the document is not looked up here.
    names: Vec<&'s str>,
    components: Option<Option<HashMap<&'s str, usize>>>,
    component_of: Vec<Option<usize>>,
    log: RefLog,
    entries: Vec<Entry<'s>>,
    by_ref: Vec<Option<usize>>,
    /// `Cx::nodes`, `Cx::depth` and `Cx::peak`.
    nodes: usize,
    depth: usize,
    peak: usize,
    /// See [`inline_counted`].
    expand: bool,
    /// Whether a recursive reference was cut or one could not be resolved.
    noted: bool,
    /// Stop at the first recursive reference cut (see [`stops_at_recursion`]), and whether
    /// that happened; a reference that cannot be resolved here then ends the work too.
    stop: bool,
    stopped: bool,
}

/// `refs::Entry`.
struct Entry<'s> {
    expanded: Node<'s>,
    nodes: usize,
    height: usize,
    visited: &'s [usize],
    unrolls: bool,
}

type Entries<'s> = &'s [(Text<'s>, Node<'s>)];

/// The descriptions joined along a chain ([`State::with_siblings`]), and the node of the text
/// while it is one as given.
type Joined<'s> = Option<(JoinedDescriptions<'s>, Option<Node<'s>>)>;

impl<'s> State<'s> {
    /// The state for inlining `root`, whose objects `count_nodes` counts; `None` unless the
    /// root is one the steps before the inlining leave as it is (an object, no root `$ref` or
    /// combinator) and holds a reference the general path inlines (`walk::contains_ref`).
    fn new(root: &'s Node<'s>, arena: &'s Bump, limits: Limits, count_nodes: usize) -> Option<Self> {
        let Node::Obj(entries) = root else { return None };
        let has = |key: &str| entries.iter().any(|(k, _)| k == key);
        let object = entries.iter().any(|(k, v)| k == "type" && matches!(v, Node::Str(t) if t == "object"));
        if !object || ["$ref", "anyOf", "oneOf", "allOf"].iter().any(|k| has(k)) || !contains_ref(root, 0) {
            return None;
        }
        Some(State {
            arena,
            limits,
            soft_budget: (count_nodes * 4).max(2_000),
            unroll_budget: crate::schema::refs::unroll_budget(count_nodes),
            unrolled_refs: 0,
            unroll_cuts: 0,
            stack: Vec::new(),
            first_hop: Vec::new(),
            unrolling: None,
            cut: 0,
            pointers: Pointers::new(root),
            ids: HashMap::new(),
            targets: Vec::new(),
            names: Vec::new(),
            components: None,
            component_of: Vec::new(),
            log: RefLog::default(),
            entries: Vec::new(),
            by_ref: Vec::new(),
            nodes: 0,
            depth: 0,
            peak: 0,
            expand: false,
            noted: false,
            stop: false,
            stopped: false,
        })
    }

    /// Whether the general path's inlining records nothing: no cut, no unresolvable reference.
    fn quiet(&self) -> bool {
        self.cut == 0 && !self.noted
    }

    /// The id of `reference` and where it leads, for a reference that [`lookup`] finds.
    fn found(&mut self, reference: &'s str) -> Result<(usize, &'s Node<'s>), Target<'s, 's>> {
        if let Some(&id) = self.ids.get(reference) {
            return Ok((id, self.targets[id]));
        }
        match self.pointers.lookup(reference) {
            Target::Found(target) => {
                let id = self.targets.len();
                self.ids.insert(reference, id);
                self.targets.push(target);
                self.names.push(reference);
                Ok((id, target))
            }
            other => Err(other),
        }
    }

    /// `refs::resolve`: `Cx::enter` and `Cx::leave` around an object; `None` where `enter`
    /// fails.
    fn resolve(&mut self, node: &'s Node<'s>, share: bool) -> Option<Node<'s>> {
        let Node::Obj(entries) = node else { return Some(*node) };
        self.depth += 1;
        self.nodes += 1;
        self.peak = self.peak.max(self.depth);
        if self.depth > self.limits.depth_limit() || self.nodes > self.limits.max_nodes {
            return None;
        }
        let out = self.resolve_object(entries, share);
        self.depth -= 1;
        out
    }

    fn resolve_object(&mut self, entries: Entries<'s>, share: bool) -> Option<Node<'s>> {
        // One pass over the keys, each classed once (`walk::keyword`, and by length and head
        // for the few names looked for among the others): a `$ref`, definitions, subschemas,
        // and what `refs::shareable_children` looks at.
        const REF: u64 = head_of(b"$ref");
        const TYPE: u64 = head_of(b"type");
        const ENUM: u64 = head_of(b"enum");
        const CONST: u64 = head_of(b"const");
        let (mut own, mut combinator, mut array, mut enumerated, mut referred) = (true, false, false, false, false);
        // The classes of the first keys, for the second pass.
        let mut kinds = [Keyword::Other; 16];
        for (i, (k, v)) in entries.iter().enumerate() {
            let kind = keyword(k);
            if let Some(slot) = kinds.get_mut(i) {
                *slot = kind;
            }
            match (kind, v) {
                (Keyword::Map, _) if is_definitions(k) => own = false,
                (Keyword::Map, Node::Obj(_)) | (Keyword::Array | Keyword::Items, Node::Arr(_)) => own = false,
                (Keyword::Single | Keyword::Items, v) if v.is_schema() => own = false,
                _ => {}
            }
            match (k.len(), head(k.as_bytes())) {
                // The first `$ref` key (as a lookup finds it).
                (4, REF) if !referred => {
                    if let Node::Str(reference) = v {
                        return self.resolve_ref(reference.as_str(), entries, share);
                    }
                    referred = true;
                }
                (4, TYPE) => array |= matches!(v, Node::Str(t) if t == "array"),
                (4, ENUM) | (5, CONST) => enumerated = true,
                _ => combinator |= kind == Keyword::Array && matches!(k.as_str(), "anyOf" | "oneOf" | "allOf"),
            }
        }
        // A node with no subschema and no definitions is the input's own.
        if own {
            return Some(Node::Obj(entries));
        }
        // `refs::shareable_children`.
        let (share_properties, share_items) = match share {
            true if !combinator => (true, array && !enumerated),
            _ => (false, false),
        };
        // Built in place in the arena (each list has its final length reserved before the
        // resolving below allocates there too).
        let arena = self.arena;
        let mut out = List::with_capacity_in(entries.len(), arena);
        for (i, (key, value)) in entries.iter().enumerate() {
            let kind = kinds.get(i).copied().unwrap_or_else(|| keyword(key));
            let new_value = match (kind, value) {
                // Definitions are left out.
                (Keyword::Map, _) if is_definitions(key) => continue,
                (Keyword::Map, Node::Obj(map)) => {
                    let share = share_properties && *key == "properties";
                    let mut m = List::with_capacity_in(map.len(), arena);
                    for (name, sub) in map.iter() {
                        m.push((*name, self.resolve(sub, share)?));
                    }
                    Node::Obj(m.into_bump_slice())
                }
                (Keyword::Array | Keyword::Items, Node::Arr(items)) => {
                    let mut a = List::with_capacity_in(items.len(), arena);
                    for sub in items.iter() {
                        a.push(self.resolve(sub, false)?);
                    }
                    Node::Arr(a.into_bump_slice())
                }
                (Keyword::Single | Keyword::Items, v) if v.is_schema() => self.resolve(value, share_items && kind == Keyword::Items)?,
                _ => *value,
            };
            out.push((*key, new_value));
        }
        Some(Node::Obj(out.into_bump_slice()))
    }

    /// The siblings of the `$ref` among `entries` (`refs::siblings_of`).
    fn siblings_of(&self, entries: Entries<'s>) -> Entries<'s> {
        let sibling = |(k, _): &&(Text, Node)| *k != "$ref" && *k != "$defs" && *k != "definitions";
        // Most references stand alone: no list to make for them.
        match entries.iter().filter(sibling).count() {
            0 => &[],
            n => {
                let mut list = List::with_capacity_in(n, self.arena);
                list.extend(entries.iter().filter(sibling).cloned());
                list.into_bump_slice()
            }
        }
    }

    fn resolve_ref(&mut self, reference: &'s str, entries: Entries<'s>, share: bool) -> Option<Node<'s>> {
        let siblings = self.siblings_of(entries);
        let (id, target) = match self.found(reference) {
            Ok(found) => found,
            Err(Target::Missing) if !self.stop => {
                self.noted = true;
                return self.resolve_object(siblings, false);
            }
            Err(_) => return None,
        };
        // `refs::resolve_ref`: a chain of aliases (`refs::alias_of`) followed at this level, each
        // hop a node. One that goes round is left to the general path, which reports it.
        let mut chain = List::with_capacity_in(1, self.arena);
        chain.push((reference, id, target));
        // The references met on the way, once there is a way (most targets are no alias).
        let mut on_chain: Option<std::collections::HashSet<usize>> = None;
        while let Some(next) = alias_of(chain[chain.len() - 1].2) {
            self.nodes += 1;
            if self.nodes > self.limits.max_nodes {
                return None;
            }
            let Ok((next_id, t)) = self.found(next) else { break };
            if !on_chain.get_or_insert_with(|| std::collections::HashSet::from([id])).insert(next_id) {
                return None;
            }
            chain.push((next, next_id, t));
        }
        let end = chain[chain.len() - 1].2;
        let hop_siblings = |st: &Self, i: usize| match i {
            0 => Some(siblings),
            _ => match chain[i - 1].2 {
                Node::Obj(entries) => Some(st.siblings_of(entries)),
                _ => None,
            },
        };
        // `schema::refs`: a target without subschemas is inlined past the budget too.
        let over_budget = self.nodes > self.soft_budget && !is_flat(end);
        // `schema::refs`: nor a target with draft 3's `required: true`.
        let share = share && siblings.is_empty() && matches!(end, Node::Obj(_)) && !matches!(end.get("required"), Some(Node::Bool(_))) && self.log.log.len() <= MAX_LOG;
        let share_below = share && (1..chain.len()).all(|i| hop_siblings(self, i).is_some_and(<[_]>::is_empty));
        let (log_before, cut_before) = (self.log.log.len(), self.cut);
        let (unrolled_before, unroll_cuts_before) = (self.unrolled_refs, self.unroll_cuts);
        let mut cut_at = None;
        let base = self.stack.len();
        for (i, &(_, id, _)) in chain.iter().enumerate() {
            self.log.log.push(id);
            let seen = self.unrolled(id, base)?;
            let unroll_spent = seen > 0 && self.nodes > self.unroll_budget && !is_flat(end);
            if seen >= self.limits.max_ref_unroll || over_budget || unroll_spent {
                cut_at = Some(i);
                self.unroll_cuts += usize::from(unroll_spent && !over_budget);
                break;
            }
            self.unrolled_refs += usize::from(seen > 0);
            if i == 0 && share {
                if let Some(placeholder) = self.reuse(id) {
                    return Some(placeholder);
                }
            }
            self.stack.push(id);
            self.first_hop.push(i == 0);
            if self.unrolling.is_some() {
                let c = self.component(id)?;
                if let Some(unrolling) = &mut self.unrolling {
                    unrolling.push(c, i == 0);
                }
            }
        }
        let (mut value, top, measured) = match cut_at {
            Some(i) => {
                if over_budget {
                    self.cut += 1;
                } else if self.stop {
                    self.stopped = true;
                    return None;
                } else {
                    self.noted = true;
                }
                let own = hop_siblings(self, i)?;
                let description = own.iter().find(|(k, _)| *k == "description").and_then(|(_, d)| d.as_str());
                let mut desc = ArenaString::new_in(self.arena);
                desc.extend(cut_description_parts(chain[i].0, description, over_budget));
                let desc = Text::unescaped(desc.into_bump_str());
                let cut = [(Text::raw("type"), Node::Str(Text::raw("object"))), (Text::raw("description"), Node::Str(desc))];
                (Node::Obj(self.arena.alloc_slice_fill_iter(cut)), i, None)
            }
            None => {
                let (nodes_before, outer_peak) = (self.nodes, std::mem::replace(&mut self.peak, self.depth));
                let resolved = self.resolve(end, share_below)?;
                let (nodes, height) = (self.nodes - nodes_before, self.peak - self.depth);
                self.peak = self.peak.max(outer_peak);
                (resolved, chain.len(), Some((nodes, height)))
            }
        };
        self.stack.truncate(self.stack.len() - cut_at.unwrap_or(chain.len()));
        self.first_hop.truncate(self.stack.len());
        if let Some(unrolling) = &mut self.unrolling {
            unrolling.truncate(self.stack.len());
        }
        // The siblings of each hop combined with what its target gave, innermost first; their
        // descriptions joined apart and put in place once.
        let mut joined = None;
        for i in (1..top).rev() {
            value = self.with_siblings(value, hop_siblings(self, i)?, Some(&mut joined))?;
        }
        if let (Some((joined, node)), Node::Obj(entries)) = (joined, value) {
            // In the first `description`, the one joined to.
            let mut node = Some(node.unwrap_or_else(|| Node::Str(Text::unescaped(self.arena.alloc_str(&joined.text())))));
            let replaced = entries.iter().map(|&(k, v)| (k, if k == "description" { node.take().unwrap_or(v) } else { v }));
            value = Node::Obj(self.arena.alloc_slice_fill_iter(replaced));
        }
        if let (true, Some((nodes, height))) = (share, measured) {
            let mut visited = List::new_in(self.arena);
            self.log.visited_since_into(log_before, self.ids.len(), &mut visited);
            let visited = visited.into_bump_slice();
            let independent = self.cut == cut_before && self.unroll_cuts == unroll_cuts_before && !self.any_unrolling(visited)?;
            let i = self.entries.len();
            if independent && self.entry_for(id).is_none() && Shared::placeholder_in(i, &mut [0; 8]).is_some() {
                self.entries.push(Entry { expanded: value, nodes, height, visited, unrolls: self.unrolled_refs != unrolled_before });
                if self.by_ref.len() <= id {
                    self.by_ref.resize(id + 1, None);
                }
                self.by_ref[id] = Some(i);
                return self.placeholder(i);
            }
        }
        self.with_siblings(value, siblings, None)
    }

    /// `refs::with_siblings`: what a reference's target gave combined with its `siblings`.
    /// With `joined` (along a chain), descriptions are joined there rather than in the node,
    /// which keeps the first it had: the text and, while the text is one as given, its node.
    fn with_siblings(&mut self, resolved: Node<'s>, siblings: Entries<'s>, mut joined: Option<&mut Joined<'s>>) -> Option<Node<'s>> {
        if siblings.is_empty() {
            return Some(resolved);
        }
        let Node::Obj(siblings) = self.resolve_object(siblings, false)? else { return None };
        Some(match resolved {
            Node::Obj(target) => {
                // `schema::siblings::merge` where it only adds keywords the target lacks and joins
                // two descriptions (a new key appended, a joined description in place); anything
                // else it combines or reports is left to the general path.
                let mut merged = List::with_capacity_in(target.len() + siblings.len(), self.arena);
                merged.extend(target.iter().cloned());
                for (k, v) in siblings.iter() {
                    match merged.iter_mut().find(|(m, _)| *m == **k) {
                        Some(slot) if *k == "description" => {
                            let (Node::Str(own), Node::Str(definition)) = (v, slot.1) else { return None };
                            if let Some(joined) = joined.as_deref_mut() {
                                let (text, node) = joined.get_or_insert_with(|| (JoinedDescriptions::new(definition.as_str().into()), Some(slot.1)));
                                text.join(own.as_str());
                                *node = match text.whole {
                                    Some(w) if std::ptr::eq(w, own.as_str()) => Some(*v),
                                    Some(_) => *node,
                                    None => None,
                                };
                                continue;
                            }
                            slot.1 = match crate::schema::siblings::joined_description(own.as_str(), definition.as_str()) {
                                std::borrow::Cow::Borrowed(d) if std::ptr::eq(d, own.as_str()) => *v,
                                std::borrow::Cow::Borrowed(_) => slot.1,
                                std::borrow::Cow::Owned(d) => Node::Str(Text::unescaped(self.arena.alloc_str(&d))),
                            };
                        }
                        // The same scalar on both sides: nothing to add.
                        Some(slot) if same_scalar(&slot.1, v) => {}
                        Some(_) => return None,
                        None if crate::schema::siblings::interacts(k, |key| target.iter().any(|(t, _)| *t == key)) => return None,
                        None => merged.push((*k, *v)),
                    }
                }
                Node::Obj(merged.into_bump_slice())
            }
            // `true` with siblings is just the siblings; `false` stays `false`.
            Node::Bool(true) => Node::Obj(siblings),
            other => other,
        })
    }

    /// `refs::State::unrolled`; `None` where the recursions are not known here.
    fn unrolled(&mut self, id: usize, base: usize) -> Option<usize> {
        if base == 0 {
            return Some(0);
        }
        let c = self.component(id)?;
        Some(self.unrolling()?.count(c, base))
    }

    /// `refs::State::unrolling`.
    fn unrolling(&mut self) -> Option<&Unrolling> {
        if self.unrolling.is_none() {
            let mut unrolling = Unrolling::default();
            for k in 0..self.stack.len() {
                unrolling.push(self.component(self.stack[k])?, self.first_hop[k]);
            }
            self.unrolling = Some(unrolling);
        }
        self.unrolling.as_ref()
    }

    /// `refs::State::any_unrolling`.
    fn any_unrolling(&mut self, visited: &[usize]) -> Option<bool> {
        if self.stack.is_empty() {
            return Some(false);
        }
        self.unrolling()?;
        for &v in visited {
            let c = self.component(v)?;
            if self.unrolling.as_ref().is_some_and(|u| u.holds(c)) {
                return Some(true);
            }
        }
        Some(false)
    }

    /// `refs::State::component`.
    fn component(&mut self, id: usize) -> Option<usize> {
        if let Some(Some(c)) = self.component_of.get(id) {
            return Some(*c);
        }
        let components = self.components.get_or_insert_with(|| reference_components(&mut self.pointers)).as_ref()?;
        let c = components.get(self.names[id]).copied().unwrap_or(usize::MAX - id);
        if self.component_of.len() <= id {
            self.component_of.resize(id + 1, None);
        }
        self.component_of[id] = Some(c);
        Some(c)
    }

    fn entry_for(&self, id: usize) -> Option<usize> {
        self.by_ref.get(id).copied().flatten()
    }

    /// `refs::reuse`.
    fn reuse(&mut self, id: usize) -> Option<Node<'s>> {
        let i = self.entry_for(id)?;
        let visited = self.entries[i].visited;
        let unrolling = self.any_unrolling(visited)?;
        let e = &self.entries[i];
        let budget = if e.unrolls { self.unroll_budget } else { self.soft_budget };
        let fits = !unrolling
            && self.nodes + e.nodes <= budget
            && self.nodes + e.nodes <= self.limits.max_nodes
            && self.depth + e.height <= self.limits.depth_limit();
        if !fits {
            return None;
        }
        let (nodes, height) = (e.nodes, e.height);
        self.log.log.extend_from_slice(self.entries[i].visited);
        self.nodes += nodes;
        self.peak = self.peak.max(self.depth + height);
        self.placeholder(i)
    }

    /// The placeholder for entry `i` (`Shared::placeholder_for`).
    fn placeholder(&self, i: usize) -> Option<Node<'s>> {
        if self.expand {
            return Some(self.entries[i].expanded);
        }
        // Written in the arena from the stack: a placeholder is made for every use of a shared
        // expansion.
        let text = Text::unescaped(self.arena.alloc_str(Shared::placeholder_in(i, &mut [0; 8])?));
        Some(Node::Obj(self.arena.alloc_slice_fill_iter([(Text::raw("$ref"), Node::Str(text))])))
    }
}

#[cfg(test)]
mod tests {
    use bumpalo::Bump;
    use serde_json::{json, Map, Value};

    use crate::convert::{convert, convert_json, convert_json_detailed, ConvertOptions};
    use crate::fast::{passed_through, Node};
    use crate::providers::{GeminiMode, Provider};
    use crate::schema::refs::{inline_refs, inline_refs_shared};
    use crate::schema::{Cx, Limits};

    /// The general path's inlining of `schema`, with its shared expansions; `None` for an error.
    fn general(schema: &Value, limits: Limits) -> Option<(Value, Vec<Value>)> {
        let mut cx = Cx::new(limits).share_refs(true);
        let out = inline_refs_shared(schema, &mut cx).ok()?;
        let shared = cx.shared.as_ref().unwrap();
        Some((out, (0..).map_while(|i| shared.expansion(i).cloned()).collect()))
    }

    /// The inlining here, as values.
    fn here(schema: &Value, limits: Limits) -> Option<(Value, Vec<Value>)> {
        let arena = Bump::new();
        let text = schema.to_string();
        let node = crate::fast::read::read(&text, &arena).unwrap();
        let inlined = super::inline(arena.alloc(node), &arena, limits)?;
        Some((inlined.root.to_value(), inlined.expansions.iter().map(Node::to_value).collect()))
    }

    /// Checks the tree and the expansions against the general path's, and the JSON API's
    /// output for Gemini and Vertex; whether the schema was lowered from the borrowed tree.
    fn same(schema: Value, limits: Limits) -> bool {
        let inlined = here(&schema, limits);
        if let Some(mine) = &inlined {
            assert_eq!(Some(mine), general(&schema, limits).as_ref(), "{schema}");
        }
        let tools = json!([{ "name": "t", "inputSchema": schema }]);
        let text = tools.to_string();
        let mut opts = ConvertOptions::default();
        opts.schema.limits = limits;
        let mut passed = Vec::new();
        for provider in [Provider::Gemini, Provider::Vertex] {
            let (fast, general) = (convert_json(&text, provider, &opts), convert(tools.clone(), provider, &opts));
            match (&fast, &general) {
                (Ok(f), Ok(g)) => assert_eq!(*f, g.tools.to_string(), "{provider:?}: {schema}"),
                (Err(f), Err(g)) => assert_eq!(f.code, g.code),
                _ => panic!("{fast:?} against {general:?}"),
            }
            passed.push(passed_through(&text, provider, &opts.schema) == 1);
        }
        assert!(inlined.is_some() || !passed[0], "lowered without being inlined here: {schema}");
        // parametersJsonSchema: the tree read through the placeholders is `inline_refs`'s, and
        // the output and the report are the general path's.
        if let Some(expanded) = expanded(&schema, limits) {
            assert_eq!(Some(expanded), inline_refs(&schema, &mut Cx::new(limits)).ok(), "{schema}");
        }
        opts.schema.gemini_mode = GeminiMode::JsonSchema;
        let general = convert(tools.clone(), Provider::Gemini, &opts);
        match (convert_json_detailed(&text, Provider::Gemini, &opts), &general) {
            (Ok(f), Ok(g)) => {
                assert_eq!(f.tools, g.tools.to_string(), "{schema}");
                assert!(f.report == g.report, "{schema}");
            }
            (Err(f), Err(g)) => assert_eq!(f.code, g.code),
            (fast, _) => panic!("{fast:?} against {general:?}"),
        }
        match (convert_json(&text, Provider::Gemini, &opts), &general) {
            (Ok(f), Ok(g)) => assert_eq!(f, g.tools.to_string()),
            (Err(f), Err(g)) => assert_eq!(f.code, g.code),
            (fast, _) => panic!("{fast:?} against {general:?}"),
        }
        inlined.is_some() && passed[0]
    }

    /// The parametersJsonSchema inlining here, as a value.
    fn expanded(schema: &Value, limits: Limits) -> Option<Value> {
        let arena = Bump::new();
        let text = schema.to_string();
        let node = crate::fast::read::read(&text, &arena).unwrap();
        super::inline_expanded(arena.alloc(node), &arena, limits).map(|n| n.to_value())
    }

    fn tree() -> Value {
        json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/node"}, "other": {"$ref": "#/$defs/node"}},
               "$defs": {"node": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}})
    }

    /// A node's own `prefixItems` shorter than its target's: both hold, item by item, and the
    /// target's items past them stay. Combining them is left to the general inliner; the output is
    /// the same either way.
    #[test]
    fn a_shorter_own_tuple_keeps_the_targets_items_past_it() {
        let schema = json!({"type": "object", "$defs": {"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]}},
                            "properties": {"p": {"$ref": "#/$defs/pair", "prefixItems": [{"maxLength": 3}]}, "q": {"$ref": "#/$defs/pair"}}});
        same(schema.clone(), Limits::default());
        assert!(here(&schema, Limits::default()).is_none(), "left to the general path");
        let root = inline_refs(&schema, &mut Cx::new(Limits::default())).unwrap();
        assert_eq!(root["properties"]["p"]["prefixItems"], json!([{"type": "string", "maxLength": 3}, {"type": "number"}]));
    }

    /// Keywords beside a `$ref` combine with the target's (2019-09+): added where the target has
    /// none, descriptions joined, here as in the general inliner; the rest is left to it.
    #[test]
    fn siblings_combine_with_the_target_on_both_paths() {
        let schema = json!({"type": "object", "$defs": {"U": {"type": "object", "description": "A user.", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
                                                       "C": {"type": "string", "maxLength": 6}},
                            "properties": {"a": {"$ref": "#/$defs/U", "description": "The owner", "title": "Owner", "type": "object"},
                                           "b": {"$ref": "#/$defs/U", "description": "A user."}, "c": {"$ref": "#/$defs/C", "minLength": 2}}});
        same(schema.clone(), Limits::default());
        let (root, _) = here(&schema, Limits::default()).expect("inlined here");
        assert_eq!(root["properties"]["a"]["description"], "The owner\n\nA user.");
        assert_eq!(root["properties"]["a"]["title"], "Owner");
        assert_eq!(root["properties"]["b"]["description"], "A user.");
        assert_eq!(root["properties"]["c"], json!({"type": "string", "maxLength": 6, "minLength": 2}));
        // Keywords the target has too, or that read the target's: the general path's.
        for (k, v) in [("properties", json!({"n": {"type": "string"}})), ("required", json!(["n"])), ("additionalProperties", json!(false))] {
            let mut s = schema.clone();
            s["properties"]["a"][k] = v;
            same(s.clone(), Limits::default());
            assert!(here(&s, Limits::default()).is_none(), "{k}");
        }
        // A `const` beside a target's `enum` is weighed against it: the general path's.
        let mut s = schema.clone();
        s["$defs"]["C"]["enum"] = json!(["abc", "de"]);
        s["properties"]["c"]["const"] = json!("de");
        same(s.clone(), Limits::default());
        assert!(here(&s, Limits::default()).is_none());
    }

    #[test]
    fn references_are_inlined_as_the_general_path_inlines_them() {
        let user = json!({"type": "object", "properties": {"id": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}});
        for schema in [
            // Shared under properties and items; written out under anyOf; overlaid by siblings.
            json!({"type": "object", "$defs": {"U": user},
                   "properties": {"a": {"$ref": "#/$defs/U"}, "b": {"$ref": "#/$defs/U"},
                                  "c": {"anyOf": [{"$ref": "#/$defs/U"}, {"type": "null"}]},
                                  "d": {"type": "array", "items": {"$ref": "#/$defs/U"}},
                                  "e": {"$ref": "#/$defs/U", "description": "with a sibling", "type": "object"}}}),
            // definitions, pointers into properties and arrays, a reference to a reference.
            json!({"type": "object", "definitions": {"A": {"$ref": "#/definitions/B"}, "B": {"type": "string", "enum": ["x", "y"]}},
                   "properties": {"a": {"$ref": "#/definitions/A"}, "l": {"type": "array", "items": {"type": "integer"}},
                                  "p": {"$ref": "#/properties/l/items"}, "q": {"$ref": "#/properties/l"},
                                  "z": {"type": "object", "properties": {"k": {"$ref": "#/definitions/A"}}}}}),
            // Recursion: shared as a whole, cut inside; through the root; mutual.
            tree(),
            json!({"type": "object", "properties": {"next": {"$ref": "#", "description": "the next one"}, "name": {"type": "string"}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}, "b": {"$ref": "#/$defs/b"}},
                   "$defs": {"a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/b"}}},
                             "b": {"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "null"}]}}}}}),
            // Chains of references to references (aliases), annotated, through a pointer, meeting
            // in one definition, ending in a recursion or in nothing.
            json!({"type": "object", "$defs": {"a": {"$ref": "#/$defs/b", "description": "via a"}, "b": {"$ref": "#/$defs/c", "title": "B"},
                                               "c": {"$ref": "#/$defs/U"}, "d": {"$ref": "#/$defs/c"}, "U": user},
                   "properties": {"p": {"$ref": "#/$defs/a"}, "q": {"$ref": "#/$defs/d"}, "r": {"$ref": "#/$defs/c"}, "s": {"$ref": "#/properties/r"},
                                  "l": {"type": "array", "items": {"$ref": "#/$defs/d"}}, "m": {"$ref": "#/$defs/missing-hop"}}}),
            json!({"type": "object", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/n"}, "n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/a"}}},
                                               "missing-hop": {"$ref": "#/$defs/nowhere"}},
                   "properties": {"x": {"$ref": "#/$defs/a"}, "y": {"$ref": "#/$defs/b"}, "z": {"$ref": "#/$defs/missing-hop", "description": "z"}}}),
            // Unresolvable references (their siblings stay), boolean and non-object targets.
            json!({"type": "object", "properties": {"m": {"$ref": "#/$defs/missing", "description": "gone"}, "n": {"$ref": "nope"},
                   "t": {"$ref": "#/$defs/t", "description": "any"}, "f": {"$ref": "#/$defs/f", "title": "none"},
                   "s": {"$ref": "#/properties/e/enum"}, "e": {"type": "string", "enum": ["a"]}},
                   "$defs": {"t": true, "f": false}}),
            // A `$ref` that is not a string, and keys named like keywords under properties.
            json!({"type": "object", "properties": {"$ref": {"type": "string"}, "x": {"$ref": 3, "type": "string"}, "d": {"$ref": "#/$defs/d"}},
                   "$defs": {"d": {"type": "number"}}}),
            // Sharing stops under combinators and for arrays whose type may change.
            json!({"type": "object", "$defs": {"U": user},
                   "properties": {"a": {"type": "array", "enum": [[]], "items": {"$ref": "#/$defs/U"}},
                                  "o": {"type": "object", "oneOf": [{"required": ["p"]}], "properties": {"p": {"$ref": "#/$defs/U"}}},
                                  "r": {"type": "object", "properties": {"p": {"$ref": "#/$defs/U"}, "q": {"$ref": "#/$defs/U"}}}}}),
        ] {
            // Inlined here, compared; lowered here unless the lowering's subset refuses it.
            assert!(here(&schema, Limits::default()).is_some(), "{schema}");
            same(schema.clone(), Limits::default());
            for unroll in [0, 1, 3] {
                same(schema.clone(), Limits { max_ref_unroll: unroll, ..Limits::default() });
            }
        }
        assert!(same(tree(), Limits::default()), "a recursive schema is lowered from the borrowed tree");
    }

    #[test]
    fn fan_out_spends_the_budget_as_the_general_path_spends_it() {
        let mut defs = Map::new();
        for i in 0..12 {
            let props: Map<String, Value> = (0..6).map(|j| (format!("p{j}"), json!({"$ref": format!("#/$defs/d{}", i + 1)}))).collect();
            defs.insert(format!("d{i}"), json!({"type": "object", "properties": props, "description": format!("level {i}")}));
        }
        defs.insert("d12".into(), json!({"type": "string"}));
        let schema = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}, "y": {"$ref": "#/$defs/d0"}, "z": {"$ref": "#/$defs/d3"}}, "$defs": defs});
        assert!(same(schema.clone(), Limits::default()));
        let (out, _) = here(&schema, Limits::default()).unwrap();
        assert!(out.to_string().contains("nesting cut here to keep the schema small"));
        // The node budget or the depth limit reached: the general way, and its error.
        assert!(!same(schema.clone(), Limits { max_nodes: 300, ..Limits::default() }));
        assert!(!same(schema, Limits { max_depth: 6, ..Limits::default() }));
        assert!(!same(tree(), Limits { max_depth: 3, ..Limits::default() }));
    }

    /// Shared expansions counted wherever they are used: at every limit around the schema's
    /// own figures, the general path's output or error, for `parameters` and
    /// `parametersJsonSchema`.
    #[test]
    fn limits_are_met_as_the_general_path_meets_them() {
        let user = json!({"type": "object", "properties": {"id": {"type": "string"}, "n": {"type": "object", "properties": {"x": {"type": "integer"}}}}});
        let schema = json!({"type": "object", "$defs": {"U": user},
                            "properties": {"a": {"$ref": "#/$defs/U"}, "b": {"$ref": "#/$defs/U"}, "c": {"type": "array", "items": {"$ref": "#/$defs/U"}},
                                           "d": {"type": "object", "properties": {"e": {"$ref": "#/$defs/U"}}}}});
        assert!(same(schema.clone(), Limits::default()));
        for max_depth in 1..8 {
            same(schema.clone(), Limits { max_depth, ..Limits::default() });
        }
        // Twelve uses of a four-object expansion: more schema nodes once inlined than the tool
        // has JSON values, so that the schema's own count decides.
        let mut wide = schema;
        for i in 0..12 {
            wide["properties"][format!("r{i}")] = json!({"$ref": "#/$defs/U"});
        }
        for max_nodes in 1..80 {
            same(wide.clone(), Limits { max_nodes, ..Limits::default() });
        }
    }

    #[test]
    fn anything_else_goes_the_general_way() {
        for schema in [
            // Escaped pointers, decoded by the general path.
            json!({"type": "object", "properties": {"r": {"$ref": "#/$defs/a~1b"}}, "$defs": {"a/b": {"type": "string"}}}),
            json!({"type": "object", "properties": {"r": {"$ref": "#/$defs/a%20b"}}, "$defs": {"a b": {"type": "string"}}}),
            // Roots that the steps before the inlining change.
            json!({"$ref": "#/$defs/R", "$defs": {"R": {"type": "object", "properties": {"a": {"$ref": "#/$defs/S"}}}, "S": {"type": "string"}}}),
            json!({"type": "object", "allOf": [{"properties": {"a": {"$ref": "#/$defs/S"}}}], "$defs": {"S": {"type": "string"}}}),
            json!({"type": "object", "$defs": {"S": {"type": "string"}}, "additionalProperties": {"$ref": "#/$defs/S"}}),
            json!({"properties": {"a": {"$ref": "#/$defs/S"}}, "$defs": {"S": {"type": "string"}}}),
            // `$ref` only where the general path does not inline: not inlined at all.
            json!({"type": "object", "properties": {"a": {"type": "string", "default": {"$ref": "x"}}}}),
        ] {
            assert!(!same(schema.clone(), Limits::default()), "{schema}");
        }
    }

    /// `d0 → d1 → … → d{hops}`, the last an object, `x` and `y` referring to `d0` and `z` to the
    /// middle of the chain: with `annotated`, each alias has a description of its own (the
    /// text joined along the chain grows with it); with `recursive`, the object refers back to
    /// `d0`, so that the chain is followed again inside itself.
    fn alias_chain(hops: usize, annotated: bool, recursive: bool) -> Value {
        let mut defs = Map::new();
        for i in 0..hops {
            let mut alias = json!({"$ref": format!("#/$defs/d{}", i + 1)});
            if annotated {
                alias["description"] = json!(format!("hop {i}"));
            }
            defs.insert(format!("d{i}"), alias);
        }
        let mut end = json!({"type": "object", "description": "the end", "properties": {"q": {"type": "string"}}, "required": ["q"]});
        if recursive {
            end["properties"]["next"] = json!({"$ref": "#/$defs/d0"});
        }
        defs.insert(format!("d{hops}"), end);
        json!({"type": "object", "$defs": defs, "required": ["x"],
               "properties": {"x": {"$ref": "#/$defs/d0", "description": "x"}, "y": {"$ref": "#/$defs/d0"}, "z": {"$ref": format!("#/$defs/d{}", hops / 2)}}})
    }

    /// A chain of thousands of aliases costs in proportion to its length for every provider
    /// and mode that inlines references, on the pass-through path (`convert_json`) and on the
    /// general one (`convert`), plain, with a description at each hop and leading back to its
    /// start. Each hop's definition was found by comparing its name with all the others, a
    /// chain's end asked again of 64 hops from each reference, the descriptions joined so far
    /// searched and copied at each hop, and the references around read at each hop of a
    /// recursion: 16,000 hops took 1.5 s in the package, 32,000 took 8.3 s.
    #[test]
    fn alias_chains_cost_in_proportion_to_their_length() {
        let modes = [
            (Provider::Gemini, false, GeminiMode::Parameters),
            (Provider::Gemini, false, GeminiMode::JsonSchema),
            (Provider::Vertex, false, GeminiMode::Parameters),
            (Provider::Vertex, false, GeminiMode::JsonSchema),
            (Provider::OpenAi, true, GeminiMode::Parameters),
            (Provider::OpenAiResponses, true, GeminiMode::Parameters),
            (Provider::Anthropic, true, GeminiMode::Parameters),
            (Provider::Bedrock, true, GeminiMode::Parameters),
        ];
        for (provider, strict, mode) in modes {
            let mut opts = ConvertOptions::default();
            opts.schema.strict = strict;
            opts.schema.gemini_mode = mode;
            for (annotated, recursive) in [(false, false), (true, false), (false, true)] {
                let tools = |hops: usize| json!([{"name": "t", "description": "d", "inputSchema": alias_chain(hops, annotated, recursive)}]);
                let steps = |hops: usize, general: bool| {
                    let tools = tools(hops);
                    let text = tools.to_string();
                    let before = crate::model::NAME_STEPS.with(|s| s.get());
                    match general {
                        true => drop(convert(tools, provider, &opts).unwrap()),
                        false => drop(convert_json(&text, provider, &opts).unwrap()),
                    }
                    crate::model::NAME_STEPS.with(|s| s.get()) - before
                };
                for general in [false, true] {
                    let (small, large) = (steps(500, general), steps(2_000, general));
                    assert!(large <= 5 * small, "{provider:?} {mode:?} strict {strict}, annotated {annotated}, recursive {recursive}, general {general}: {small} then {large} steps for 4 times the hops");
                }
                for hops in [1, 2, 3, 40] {
                    let tools = tools(hops);
                    let general = convert(tools.clone(), provider, &opts).unwrap().tools.to_string();
                    assert_eq!(convert_json(&tools.to_string(), provider, &opts).unwrap(), general, "{provider:?} {mode:?} {hops}");
                }
            }
        }
    }

    /// Every corpus schema with references: the same tree, expansions and output.
    #[test]
    fn corpus_schemas_inline_as_the_general_path_inlines_them() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/tools");
        let (mut inlined, mut with_refs) = (0, 0);
        for entry in std::fs::read_dir(dir).expect("the corpus is beside the project") {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let doc: Value = serde_json::from_str(&text).unwrap();
            for tool in doc["tools"].as_array().into_iter().flatten() {
                let schema = &tool["inputSchema"];
                if !schema.to_string().contains("\"$ref\"") {
                    continue;
                }
                with_refs += 1;
                if let Some(mine) = here(schema, Limits::default()) {
                    assert_eq!(Some(mine), general(schema, Limits::default()), "{}", tool["name"]);
                    let whole = inline_refs(schema, &mut Cx::new(Limits::default())).ok();
                    assert_eq!(expanded(schema, Limits::default()), whole, "{}", tool["name"]);
                    inlined += 1;
                }
            }
        }
        assert!(with_refs >= 40 && inlined * 10 >= with_refs * 9, "{inlined} of {with_refs} inlined here");
    }
}
