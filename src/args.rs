//! Mapping a model's arguments back to what the MCP server expects.
//!
//! Conversions that change the argument domain record an [`ArgPlan`]: Gemini's string-only
//! enums (`"16"` must go back to `16`), nullable widening for strict modes (a `null` for an
//! optional field means "not given" and is removed), a wrapped non-object root (`{input: x}`
//! goes back to `x`), and property keys the provider refuses, renamed (Claude's `$filter` sent as
//! `dollar_filter` goes back to `$filter`). [`ArgPlan::apply`] undoes exactly those changes and
//! nothing else.

use serde_json::{Map, Value};

use std::collections::HashMap;

use crate::error::{Error, ErrorCode, Result};
use crate::model::{read_array, read_bool, read_field, read_object, read_opt_field, read_string, string, NamePositions, NameSet, Put as _, Read};
use crate::text::Owned as _;

/// How to map one argument value back. Empty plans are omitted.
///
/// JSON form ([`ArgPlan::to_value`], in a serialised name map): `{unwrap?, properties?, items?,
/// anyOf?, enumValues?, nullMeansAbsent?, renamed?, ref?, defs?, fit?}`, each field absent when
/// empty, `properties` and `defs` sorted by name; `renamed` an object from the key the provider
/// saw to the server's own (`{"dollar_filter": "$filter"}`), in the schema's order; `fit`
/// ([`Fit`]) on the plans of `anyOf` branches.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ArgPlan {
    /// The root was wrapped: take this property's value as the whole argument.
    pub unwrap: Option<String>,
    /// Plans for object properties.
    pub properties: PropertyPlans,
    /// Plan for array items (those after [`ArgPlan::prefix_items`]).
    pub items: Option<Box<ArgPlan>>,
    /// Plans for the first array items, by position (`prefixItems`), empty ones included.
    pub prefix_items: Vec<ArgPlan>,
    /// Plan for the values of the object's keys that [`ArgPlan::properties`] does not name
    /// (`additionalProperties`); when set, `properties` names every declared key, with an
    /// empty plan where there is nothing to do.
    pub additional: Option<Box<ArgPlan>>,
    /// Plans for `anyOf` branches, each with the [`Fit`] of its branch: of the branches the
    /// value fits, the one whose plan changes it most maps it (the first of those that change
    /// it as much; see [`ArgPlan::apply`]).
    pub any_of: Vec<ArgPlan>,
    /// Original enum values, whose string forms the provider saw.
    pub enum_values: Vec<Value>,
    /// Optional properties (by name) that strict mode made nullable: a `null` means "absent".
    pub null_means_absent: Vec<String>,
    /// Properties of this object whose key the provider refused, renamed: `(the key the
    /// provider saw, the server's key)`, in the schema's order. Only this object's keys are
    /// renamed back (a key of another object that reads as a renamed one is that object's own).
    /// The names of `properties` and `null_means_absent` are the provider's: they apply first.
    pub renamed: Vec<(String, String)>,
    /// The value is that of a schema kept as a reference (OpenAI strict keeps recursion; a
    /// renamed root's keys are mapped back wherever a reference reaches it): apply the root's
    /// plan of that definition, or the root plan itself for `"#"`.
    pub reference: Option<Box<str>>,
    /// At the root: the plans of the definitions that [`ArgPlan::reference`]s name (boxed: a
    /// plan is on every node, definitions only on the root of a few).
    pub defs: Option<Box<PropertyPlans>>,
    /// On the plan of an `anyOf` branch: what a value must be like to be one of that branch's
    /// (`None`: any value, as in plans written before fits were). It changes nothing by itself.
    pub fit: Option<Box<Fit>>,
}

impl ArgPlan {
    /// Whether the plan changes nothing (a [`Fit`] alone changes nothing).
    pub fn is_empty(&self) -> bool {
        self.unwrap.is_none()
            && self.properties.is_empty()
            && self.items.is_none()
            && self.prefix_items.is_empty()
            && self.additional.is_none()
            && self.any_of.is_empty()
            && self.enum_values.is_empty()
            && self.null_means_absent.is_empty()
            && self.renamed.is_empty()
            && self.reference.is_none()
            && self.defs.is_none()
    }

    /// Sets the plan of a property (skipping empty plans).
    pub fn set_property(&mut self, name: &str, plan: ArgPlan) {
        if !plan.is_empty() {
            self.properties.insert(name.owned(), plan);
        }
    }

    /// The JSON form (see [`ArgPlan`]).
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        if let Some(u) = &self.unwrap {
            o.put("unwrap", string(u));
        }
        if !self.properties.is_empty() {
            let props = self.properties.iter().map(|(k, p)| (k.clone(), p.to_value())).collect();
            o.put("properties", Value::Object(props));
        }
        if let Some(items) = &self.items {
            o.put("items", items.to_value());
        }
        if !self.prefix_items.is_empty() {
            o.put("prefixItems", Value::Array(self.prefix_items.iter().map(Self::to_value).collect()));
        }
        if let Some(additional) = &self.additional {
            o.put("additionalProperties", additional.to_value());
        }
        if !self.any_of.is_empty() {
            o.put("anyOf", Value::Array(self.any_of.iter().map(Self::to_value).collect()));
        }
        if !self.enum_values.is_empty() {
            o.put("enumValues", Value::Array(self.enum_values.clone()));
        }
        if !self.null_means_absent.is_empty() {
            o.put("nullMeansAbsent", self.null_means_absent.clone().into());
        }
        if !self.renamed.is_empty() {
            o.put("renamed", Value::Object(self.renamed.iter().map(|(to, from)| (to.clone(), string(from))).collect()));
        }
        if let Some(r) = &self.reference {
            o.put("ref", string(r));
        }
        if let Some(defs) = &self.defs {
            o.put("defs", Value::Object(defs.iter().map(|(k, p)| (k.clone(), p.to_value())).collect()));
        }
        if let Some(fit) = &self.fit {
            o.put("fit", fit.to_value());
        }
        Value::Object(o)
    }

    /// Reads the JSON form back. Absent fields are empty, `null` is accepted for `unwrap` and
    /// `items`, unknown fields are ignored; a field of the wrong type is an `INVALID_INPUT`
    /// error naming it.
    pub fn from_value(v: &Value) -> Result<Self> {
        Self::read(v).map_err(|e| e.into_error(ErrorCode::InvalidInput, "invalid argument plan"))
    }

    pub(crate) fn read(v: &Value) -> Read<Self> {
        let o = read_object(v)?;
        let plans = |v: &Value| {
            let mut props = PropertyPlans::default();
            for (k, p) in read_object(v)? {
                props.insert(k.clone(), Self::read(p).map_err(|e| e.at_key(k))?);
            }
            Ok(props)
        };
        let properties = read_field(o, "properties", plans)?;
        Ok(Self {
            unwrap: read_opt_field(o, "unwrap", read_string)?,
            properties: properties.unwrap_or_default(),
            items: read_opt_field(o, "items", Self::read)?.map(Box::new),
            prefix_items: read_field(o, "prefixItems", |v| read_array(v, Self::read))?.unwrap_or_default(),
            additional: read_opt_field(o, "additionalProperties", Self::read)?.map(Box::new),
            any_of: read_field(o, "anyOf", |v| read_array(v, Self::read))?.unwrap_or_default(),
            enum_values: read_field(o, "enumValues", |v| read_array(v, |x| Ok(x.clone())))?.unwrap_or_default(),
            null_means_absent: read_field(o, "nullMeansAbsent", |v| read_array(v, read_string))?.unwrap_or_default(),
            renamed: read_field(o, "renamed", |v| {
                read_object(v)?.iter().map(|(to, from)| Ok((to.clone(), read_string(from).map_err(|e| e.at_key(to))?))).collect::<Read<Vec<_>>>()
            })?
            .unwrap_or_default(),
            reference: read_opt_field(o, "ref", read_string)?.map(String::into_boxed_str),
            defs: read_field(o, "defs", plans)?.filter(|d| !d.is_empty()).map(Box::new),
            fit: read_opt_field(o, "fit", Fit::read)?.map(Box::new),
        })
    }

    /// Removes the references to definitions that have no plan (nothing to do there), on the
    /// root plan and the plans of its definitions.
    pub(crate) fn drop_dangling_references(&mut self) {
        fn strip(plan: &mut ArgPlan, defs: &[String]) {
            if plan.reference.as_deref().is_some_and(|r| r != "#" && !defs.iter().any(|d| **d == *r)) {
                plan.reference = None;
            }
            for (_, p) in plan.properties.0.iter_mut() {
                strip(p, defs);
            }
            if let Some(additional) = &mut plan.additional {
                strip(additional, defs);
                if additional.is_empty() {
                    plan.additional = None;
                }
            }
            // With `additional`, the empty plans name the declared keys.
            if plan.additional.is_none() {
                plan.properties.0.retain(|(_, p)| !p.is_empty());
            }
            if let Some(items) = &mut plan.items {
                strip(items, defs);
                if items.is_empty() {
                    plan.items = None;
                }
            }
            plan.prefix_items.iter_mut().for_each(|p| strip(p, defs));
            if plan.items.is_none() && plan.prefix_items.iter().all(ArgPlan::is_empty) {
                plan.prefix_items.clear();
            }
            plan.any_of.iter_mut().for_each(|p| strip(p, defs));
            if plan.any_of.iter().all(ArgPlan::is_empty) {
                plan.any_of.clear();
            }
        }
        let mut defs = self.defs.take();
        let names: Vec<String> = defs.iter().flat_map(|d| d.keys().cloned()).collect();
        strip(self, &names);
        for (_, def) in defs.iter_mut().flat_map(|d| d.0.iter_mut()) {
            strip(def, &names);
        }
        self.defs = defs;
    }

    /// Maps `value` back. Values the plan does not recognise pass through unchanged. A value
    /// past the bounds of [`ArgPlan::try_apply`] comes back only partly mapped.
    pub fn apply(&self, value: Value) -> Value {
        self.run(value).0 .0
    }

    /// [`ArgPlan::apply`], or `LIMIT_EXCEEDED` where the value could not be mapped back whole:
    /// nested deeper than 128 levels where the plan still has something to do (the arguments
    /// are read to 400), or a union whose branches nothing in the value tells apart nested so that deciding them would take more
    /// than [`BRANCH_WORK`] steps (the same sub-value under the same plan is mapped once, so a
    /// recursive union takes time linear in the value; the bound is for what is left).
    /// `name`: the tool's, for the error.
    /// A wrapped root's (`unwrap`) arguments hold nothing but the wrapping property: any other
    /// key, with it or without it (the wrapped object's own keys written at the top), is
    /// `INVALID_ARGUMENTS`, not dropped.
    pub fn try_apply(&self, value: Value, name: &str) -> Result<Value> {
        if let (Some(prop), Value::Object(o)) = (&self.unwrap, &value) {
            let others: Vec<String> = o.keys().filter(|k| *k != prop).take(5).map(|k| format!("\"{k}\"")).collect();
            if !others.is_empty() {
                let more = if o.len() - usize::from(o.contains_key(prop)) > others.len() { ", ..." } else { "" };
                let place = if o.contains_key(prop) { "beside it" } else { "without it" };
                return Err(Error::new(
                    ErrorCode::InvalidArguments,
                    format!(
                        "the arguments of \"{name}\" go under \"{prop}\" (its input schema is not an object schema, and was given to the model wrapped): got {}{more} {place}",
                        others.join(", ")
                    ),
                ));
            }
        }
        match self.run(value).0 {
            (v, None) => Ok(v),
            (_, Some(why)) => Err(Error::new(ErrorCode::LimitExceeded, format!("the arguments of \"{name}\" could not be mapped back to the server's: {why}"))),
        }
    }

    /// The value mapped, why it is not whole, and the steps deciding unions took.
    fn run(&self, value: Value) -> ((Value, Option<&'static str>), usize) {
        let mut cx = Cx { root: self, branching: 0, work: 0, exceeded: None, memo: HashMap::new(), alike: HashMap::new(), enums: HashMap::new() };
        let v = self.apply_at(value, 0, &mut cx, &mut Vec::new());
        ((v, cx.exceeded), cx.work)
    }

    /// `depth`: of `value` in the arguments. `cx.root`: the plan that holds the definitions a
    /// reference names. `followed`: the references followed on this value so far, each taken
    /// once (a definition applied again to the same value would do what it did the first time,
    /// and a cycle of references through `anyOf`s would otherwise branch without end).
    fn apply_at<'p>(&'p self, value: Value, depth: usize, cx: &mut Cx<'p>, followed: &mut Vec<&'p str>) -> Value {
        if depth > MAX_DEPTH {
            cx.exceed(DEEP);
            return value;
        }
        let value = match self.reference.as_deref() {
            Some(name) if followed.contains(&name) => return value,
            Some(name) => {
                followed.push(name);
                let target = if name == "#" { Some(cx.root) } else { cx.root.defs.as_ref().and_then(|d| d.get(name)) };
                match target {
                    Some(def) => def.apply_at(value, depth, cx, followed),
                    None => value,
                }
            }
            None => value,
        };
        let value = self.apply_inner(value, depth, cx, followed);
        match (&self.unwrap, value) {
            (Some(prop), Value::Object(mut o)) => o.remove(prop).unwrap_or(Value::Null),
            (_, other) => other,
        }
    }

    /// The plan of a member or an item applied to it (with no reference followed yet). While a
    /// union is being decided, each branch maps the same members: the result is kept by plan,
    /// depth and value, and a branch that maps a member as another did takes that result.
    fn apply_child<'p>(&'p self, value: Value, depth: usize, cx: &mut Cx<'p>) -> Value {
        if cx.branching == 0 || cx.exceeded.is_some() {
            return self.apply_at(value, depth, cx, &mut Vec::new());
        }
        let mut hasher = Fx(0);
        let size = hash_value(&value, &mut hasher, 0);
        cx.spend(size);
        let key = (std::ptr::from_ref(self) as usize, depth, std::hash::Hasher::finish(&hasher));
        if let Some((_, done)) = cx.memo.get(&key).and_then(|kept| kept.iter().find(|(from, _)| *from == value)) {
            let done = done.clone();
            cx.spend(hash_value(&done, &mut Fx(0), 0));
            return done;
        }
        let done = self.apply_at(value.clone(), depth, cx, &mut Vec::new());
        // What is kept counts as well: it bounds the memo's memory.
        cx.spend(2 * size);
        cx.memo.entry(key).or_default().push((value, done.clone()));
        done
    }

    fn apply_inner<'p>(&'p self, value: Value, depth: usize, cx: &mut Cx<'p>, followed: &mut Vec<&'p str>) -> Value {
        match value {
            Value::String(s) if !self.enum_values.is_empty() => match cx.enum_value(self, &s) {
                Some(orig) => orig.clone(),
                None => Value::String(s),
            },
            Value::Object(mut o) if !self.properties.is_empty() || !self.null_means_absent.is_empty() || !self.renamed.is_empty() || self.additional.is_some() => {
                // Which branches the value fits is read from it as the model sent it.
                let sent = (!self.any_of.is_empty()).then(|| Value::Object(o.clone()));
                for name in &self.null_means_absent {
                    if o.get(name).is_some_and(Value::is_null) {
                        o.remove(name);
                    }
                }
                for (name, plan) in &self.properties {
                    if let Some(v) = o.get_mut(name) {
                        let taken = std::mem::take(v);
                        *v = plan.apply_child(taken, depth + 1, cx);
                    }
                }
                if let Some(additional) = self.additional.as_deref() {
                    for (_, v) in o.iter_mut().filter(|(name, _)| self.properties.get(name).is_none()) {
                        let taken = std::mem::take(v);
                        *v = additional.apply_child(taken, depth + 1, cx);
                    }
                }
                if !self.renamed.is_empty() {
                    o = self.rename_back(o);
                }
                self.any_of_apply(Value::Object(o), sent.as_ref(), depth, cx, followed)
            }
            Value::Array(items) if self.items.is_some() || !self.prefix_items.is_empty() => {
                let rest = self.items.as_deref();
                let plan_of = |i: usize| self.prefix_items.get(i).or(rest);
                let items = items.into_iter().enumerate().map(|(i, v)| match plan_of(i) {
                    Some(plan) => plan.apply_child(v, depth + 1, cx),
                    None => v,
                });
                Value::Array(items.collect())
            }
            other => self.any_of_apply(other, None, depth, cx, followed),
        }
    }

    /// The keys of [`ArgPlan::renamed`] back to the server's, each where the provider's was. A
    /// server's key the model sent as well (undeclared, the schema having the renamed one) gives
    /// way to the renamed one, which is what the schema described.
    fn rename_back(&self, o: Map<String, Value>) -> Map<String, Value> {
        // By hash: a schema may rename thousands of keys, and the model send as many.
        let server_keys: std::collections::HashMap<&str, &str> = self.renamed.iter().map(|(to, from)| (to.as_str(), from.as_str())).collect();
        let shadowed: std::collections::HashSet<&str> = self.renamed.iter().filter(|(to, _)| o.contains_key(to)).map(|(_, from)| from.as_str()).collect();
        let mut out = Map::with_capacity(o.len());
        for (k, v) in o {
            match server_keys.get(k.as_str()) {
                Some(from) => {
                    out.insert((*from).to_owned(), v);
                }
                None if shadowed.contains(k.as_str()) => {}
                None => {
                    out.insert(k, v);
                }
            }
        }
        out
    }

    /// The value is mapped by a branch it fits ([`Fit::admits`], on `sent`, the value as the
    /// model sent it, or `value` itself): a branch's plan applied to a value of another
    /// branch would undo what that branch never did (remove a `null` it requires, turn its
    /// string `"1"` into a number). Where several fit (a union whose branches nothing in the
    /// value tells apart), the one whose plan changes the value most is taken to be the one it
    /// was made for, the first of those that change it as much: a branch's plan touches only
    /// what that branch declares, so in a union of objects that share some optional fields
    /// (each made nullable by strict mode), the first branch to remove a shared `null` would
    /// leave the others' in place. The conversion reports the unions where that rule decides
    /// ([`ambiguous_branches`]). A value that fits no branch is left as it is. Of branches
    /// that map alike ([`same_mapping`]: they differ in what the schema checks, not in what
    /// their plans do), the first that fits maps the value, once, as any of them would: there
    /// is nothing to decide between them.
    fn any_of_apply<'p>(&'p self, value: Value, sent: Option<&Value>, depth: usize, cx: &mut Cx<'p>, followed: &mut Vec<&'p str>) -> Value {
        let sent = sent.unwrap_or(&value);
        let fits = |branch: &&'p ArgPlan| branch.fit.as_deref().is_none_or(|fit| fit.admits(sent));
        let mut several = self.any_of.iter().filter(fits).nth(1).is_some();
        if several && cx.exceeded.is_some() {
            // Past a bound the call is an error: the first branch that fits, without deciding.
            return match self.any_of.iter().find(fits) {
                Some(branch) => branch.apply_at(value, depth, cx, followed),
                None => value,
            };
        }
        // Several fit: the first that fits of each mapping.
        let distinct: Option<Vec<&'p ArgPlan>> = several.then(|| {
            let alike = cx.alike(self);
            let mut taken: Vec<usize> = Vec::with_capacity(alike.len());
            let mut out = Vec::with_capacity(alike.len());
            for (i, branch) in self.any_of.iter().enumerate().filter(|(_, b)| fits(b)) {
                if !taken.contains(&alike[i]) {
                    taken.push(alike[i]);
                    out.push(branch);
                }
            }
            out
        });
        several = distinct.as_ref().is_some_and(|d| d.len() > 1);
        // One fits: that one.
        let one = self.any_of.iter().filter(fits).take(if distinct.is_some() { 0 } else { usize::MAX });
        cx.branching += usize::from(several);
        let mut best: Option<(usize, Value)> = None;
        for branch in distinct.into_iter().flatten().chain(one) {
            // `followed` is shared by the branches: a reference is followed once on this value
            // (a union of references to one another would otherwise branch without end).
            let mapped = branch.apply_at(value.clone(), depth, cx, followed);
            let mut seen = 0;
            let changed = changes(&value, &mapped, 0, &mut seen);
            if several {
                cx.spend(2 * seen);
            }
            if changed > best.as_ref().map_or(0, |(n, _)| *n) {
                best = Some((changed, mapped));
            }
        }
        cx.branching -= usize::from(several);
        best.map_or(value, |(_, mapped)| mapped)
    }
}

/// How deep in the arguments a plan maps them (a value deeper that the plan still has something
/// to do with makes [`ArgPlan::try_apply`] `LIMIT_EXCEEDED`).
const MAX_DEPTH: usize = 128;
const DEEP: &str = "they are nested deeper than 128 levels where the tool's schema still maps them";
/// How many steps (values mapped, compared, kept) deciding the unions of one value may take.
pub const BRANCH_WORK: usize = 1_000_000;
const BRANCHY: &str = "deciding between branches of a union that nothing in them tells apart took too long";

/// What one mapping keeps across the value.
struct Cx<'p> {
    root: &'p ArgPlan,
    /// How many unions with several branches that fit are being decided around the value.
    branching: usize,
    /// Steps taken deciding them.
    work: usize,
    /// Why the value could not be mapped whole.
    exceeded: Option<&'static str>,
    /// Members mapped while deciding: by (plan, depth, hash of the value), the values and what
    /// the plan made of them.
    memo: HashMap<(usize, usize, u64), Vec<(Value, Value)>>,
    /// The unions several branches of which a value fitted, by plan: for each branch, the first
    /// branch that maps alike ([`Cx::alike`]).
    alike: HashMap<usize, Vec<usize>>,
    /// The enums of more than [`NameSet::FEW`] values, by plan: where the first value of each
    /// string form is ([`Cx::enum_value`]).
    enums: HashMap<usize, HashMap<String, usize>>,
}

impl Cx<'_> {
    /// For each branch of the union `plan`, the first of its branches whose plan maps every value
    /// alike ([`same_mapping`]), itself for most: read once a mapping.
    fn alike(&mut self, plan: &ArgPlan) -> Vec<usize> {
        let branches = &plan.any_of;
        self.alike
            .entry(std::ptr::from_ref(plan) as usize)
            .or_insert_with(|| (0..branches.len()).map(|i| (0..i).find(|&j| same_mapping(&branches[j], &branches[i])).unwrap_or(i)).collect())
            .clone()
    }

    /// The first of `plan`'s enum values whose string form ([`enum_string`]) is `s`: looked up in
    /// an index made once a call when the enum is large (an array of thousands of values of an
    /// enum of thousands compared each with each).
    fn enum_value<'v>(&mut self, plan: &'v ArgPlan, s: &str) -> Option<&'v Value> {
        let values = &plan.enum_values;
        if values.len() <= NameSet::FEW {
            return values.iter().find(|v| enum_string(v) == s);
        }
        let index = self.enums.entry(std::ptr::from_ref(plan) as usize).or_insert_with(|| {
            let mut index = HashMap::with_capacity(values.len());
            for (i, v) in values.iter().enumerate() {
                index.entry(enum_string(v)).or_insert(i);
            }
            index
        });
        index.get(s).map(|&i| &values[i])
    }

    fn exceed(&mut self, why: &'static str) {
        self.exceeded.get_or_insert(why);
    }

    fn spend(&mut self, steps: usize) {
        self.work = self.work.saturating_add(steps);
        if self.work > BRANCH_WORK {
            self.exceed(BRANCHY);
        }
    }
}

/// A fast hash (rustc's): the memo compares the values a hash finds, so a collision costs time,
/// never a wrong value.
struct Fx(u64);

impl std::hash::Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Hashes `v` (the memo's key) and says how many values it holds.
fn hash_value(v: &Value, h: &mut Fx, depth: usize) -> usize {
    use std::hash::Hash;
    std::mem::discriminant(v).hash(h);
    match v {
        Value::Null => 1,
        Value::Bool(b) => {
            b.hash(h);
            1
        }
        Value::Number(n) => {
            n.hash(h);
            1
        }
        Value::String(s) => {
            s.hash(h);
            1
        }
        // Deeper than the plans map, the length alone (equal values are compared whole).
        Value::Array(a) if depth > MAX_DEPTH => {
            a.len().hash(h);
            1
        }
        Value::Object(o) if depth > MAX_DEPTH => {
            o.len().hash(h);
            1
        }
        Value::Array(a) => {
            a.len().hash(h);
            1 + a.iter().map(|x| hash_value(x, h, depth + 1)).sum::<usize>()
        }
        Value::Object(o) => {
            o.len().hash(h);
            1 + o
                .iter()
                .map(|(k, x)| {
                    k.hash(h);
                    hash_value(x, h, depth + 1)
                })
                .sum::<usize>()
        }
    }
}

/// How many values differ between `before` and what a plan made of it (a member removed, a
/// value replaced), counted down to where they differ; `seen`: how many it looked at.
fn changes(before: &Value, after: &Value, depth: usize, seen: &mut usize) -> usize {
    *seen += 1;
    match (before, after) {
        _ if depth > MAX_DEPTH => usize::from(before != after),
        (Value::Object(a), Value::Object(b)) => a.iter().map(|(k, v)| b.get(k).map_or(1, |w| changes(v, w, depth + 1, seen))).sum(),
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a.iter().zip(b).map(|(v, w)| changes(v, w, depth + 1, seen)).sum(),
        _ => usize::from(before != after),
    }
}

/// What a value must be like to be one of an `anyOf` branch's, read from the branch as the
/// provider's schema has it ([`Fit::of`]: the form the model answers in, Gemini's enum strings
/// and strict mode's nulls included). Only what tells branches apart cheaply is kept (types,
/// `enum`/`const` values, required and allowed properties, a few levels down); it is a
/// necessary condition, so a value valid for the branch always fits it, and one that does not
/// fit is no value of the branch.
///
/// JSON form (in an [`ArgPlan`]'s `fit`): `{types?, values?, required?, closed?, properties?,
/// items?}`, each absent when empty (`types` by name, `properties` in the schema's order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fit {
    /// The JSON types it takes, one bit each of [`FIT_TYPES`] (0: any).
    pub types: u8,
    /// The values it takes (`enum`, `const`; empty: any).
    pub values: Vec<Value>,
    /// An object's required properties.
    pub required: Vec<String>,
    /// An object takes no property but those of [`Fit::properties`].
    pub closed: bool,
    /// What an object's properties must fit: every property where it is closed, else those
    /// that say something.
    pub properties: Vec<(String, Fit)>,
    /// What an array's items must fit.
    pub items: Option<Box<Fit>>,
}

/// The type names of [`Fit::types`], bit 0 first. `number` takes integers as well.
pub const FIT_TYPES: [&str; 7] = ["null", "boolean", "integer", "number", "string", "array", "object"];
const INTEGER: u8 = 1 << 2;
const NUMBER: u8 = 1 << 3;
const OBJECT: u8 = 1 << 6;
const ALL: u8 = (1 << 7) - 1;
/// How many levels below a branch [`Fit::of`] reads (the discriminators of unions are near
/// their top), and how many values it keeps of an `enum` (larger ones are no discriminators).
const FIT_DEPTH: usize = 3;
const FIT_VALUES: usize = 64;
/// How many references [`Fit::of_with`] follows for one fit.
const FIT_REFS: usize = 32;

/// How [`Fit::read_schema`] reads a `$ref`: as what `resolve` gives, while `left` lasts.
struct Targets<'r, 't> {
    resolve: &'r dyn Fn(&str) -> Option<&'t Value>,
    left: usize,
}

impl Fit {
    /// The fit of a schema as the provider has it (JSON Schema, or Gemini's subset before its
    /// wire spelling: `nullable`, lower-case types); `{}` for a reference.
    pub fn of(schema: &Value) -> Self {
        Self::read_schema(schema, 0, &mut Targets { resolve: &|_| None, left: 0 })
    }

    /// [`Fit::of`] a schema whose references are kept (OpenAI strict keeps a recursion):
    /// a `$ref` is read as its target, `resolve`'s (the definition as the provider has it),
    /// for at most [`FIT_REFS`] references in all (a recursion is read a few levels down, as
    /// any schema is).
    pub(crate) fn of_with<'t>(schema: &Value, resolve: &dyn Fn(&str) -> Option<&'t Value>) -> Self {
        Self::read_schema(schema, 0, &mut Targets { resolve, left: FIT_REFS })
    }

    fn read_schema<'t>(schema: &Value, depth: usize, targets: &mut Targets<'_, 't>) -> Self {
        let Value::Object(o) = schema else { return Self::default() };
        if let Some(r) = o.get("$ref") {
            let target = r.as_str().filter(|_| targets.left > 0).and_then(|r| (targets.resolve)(r));
            return match target {
                Some(target) => {
                    targets.left -= 1;
                    Self::read_schema(target, depth, targets)
                }
                None => Self::default(),
            };
        }
        let mut fit = Self::default();
        let bit = |t: &Value| t.as_str().and_then(|t| FIT_TYPES.iter().position(|n| *n == t)).map(|i| 1u8 << i);
        fit.types = match o.get("type") {
            Some(t @ Value::String(_)) => bit(t).unwrap_or(0),
            Some(Value::Array(ts)) => ts.iter().map(bit).try_fold(0, |acc, b| b.map(|b| acc | b)).unwrap_or(0),
            _ => 0,
        };
        let nullable = o.get("nullable") == Some(&Value::Bool(true));
        if let Some(Value::Array(branches)) = o.get("anyOf") {
            // The union of the branches' types, where each says its own.
            let union = branches.iter().map(|b| Self::read_schema(b, FIT_DEPTH, targets).types).try_fold(0u8, |acc, t| (t != 0).then_some(acc | t));
            if let Some(union) = union.filter(|u| *u != 0) {
                fit.types = if fit.types == 0 { union } else { fit.types & (union | if union & NUMBER != 0 { INTEGER } else { 0 }) };
            }
        }
        if nullable && fit.types != 0 {
            fit.types |= 1;
        }
        match (o.get("const"), o.get("enum")) {
            (Some(c), _) => fit.values = vec![c.clone()],
            (None, Some(Value::Array(e))) if e.len() <= FIT_VALUES => fit.values = e.clone(),
            _ => {}
        }
        if nullable && !fit.values.is_empty() && !fit.values.contains(&Value::Null) {
            fit.values.push(Value::Null);
        }
        if let Some(Value::Array(r)) = o.get("required") {
            fit.required = r.iter().filter_map(Value::as_str).map(str::to_owned).collect();
        }
        fit.closed = o.get("additionalProperties") == Some(&Value::Bool(false)) && !o.contains_key("patternProperties") && !o.contains_key("anyOf");
        if depth < FIT_DEPTH {
            if let Some(Value::Object(props)) = o.get("properties") {
                for (name, sub) in props {
                    let f = Self::read_schema(sub, depth + 1, targets);
                    if fit.closed || !f.is_any() {
                        fit.properties.push((name.clone(), f));
                    }
                }
            }
            if let Some(items) = o.get("items").map(|i| Self::read_schema(i, depth + 1, targets)).filter(|f| !f.is_any()) {
                fit.items = Some(Box::new(items));
            }
        } else {
            // Properties it does not read: a closed object's are not known.
            fit.closed = false;
        }
        fit
    }

    /// Whether it takes any value.
    fn is_any(&self) -> bool {
        self.types == 0 && self.values.is_empty() && self.required.is_empty() && !self.closed && self.properties.is_empty() && self.items.is_none()
    }

    /// Whether it takes values of type `t` (a name of [`FIT_TYPES`]).
    pub(crate) fn takes_type(&self, t: &str) -> bool {
        self.types == 0 || FIT_TYPES.iter().position(|n| *n == t).is_some_and(|i| self.types & (1 << i) != 0)
    }

    /// What its property `name` must fit, where it says.
    pub(crate) fn property(&self, name: &str) -> Option<&Fit> {
        self.property_at(None, name)
    }

    /// The positions of its properties' names, to look `names` names up among them: `None`
    /// where the names or the properties are few, and a scan for each costs little.
    fn positions(&self, names: usize) -> Option<NamePositions<'_>> {
        (names > NameSet::FEW && self.properties.len() > NameSet::FEW).then(|| NamePositions::of(self.properties.iter().map(|(n, _)| n.as_str())))
    }

    /// [`Fit::property`] through `positions` (its [`Fit::positions`]) where there are.
    fn property_at(&self, positions: Option<&NamePositions>, name: &str) -> Option<&Fit> {
        match positions {
            Some(p) => p.position(name).map(|i| &self.properties[i].1),
            None => {
                #[cfg(test)]
                crate::model::count_steps(self.properties.len());
                self.properties.iter().find(|(n, _)| n == name).map(|(_, f)| f)
            }
        }
    }

    /// Whether `v` fits.
    pub fn admits(&self, v: &Value) -> bool {
        if self.types != 0 && self.types & type_bits(v) == 0 {
            return false;
        }
        if !self.values.is_empty() && !self.values.iter().any(|x| crate::model::same_value(x, v)) {
            return false;
        }
        match v {
            Value::Object(o) => {
                let positions = self.positions(o.len());
                self.required.iter().all(|r| o.contains_key(r))
                    && o.iter().all(|(k, x)| match self.property_at(positions.as_ref(), k) {
                        Some(f) => f.admits(x),
                        None => !self.closed,
                    })
            }
            Value::Array(a) => self.items.as_deref().is_none_or(|f| a.iter().all(|x| f.admits(x))),
            _ => true,
        }
    }

    /// Whether some value may fit both (false only where none can: no type, value or
    /// required property in common).
    pub fn overlaps(&self, other: &Fit) -> bool {
        if !self.values.is_empty() {
            return self.values.iter().any(|v| other.admits(v) && self.admits(v));
        }
        if !other.values.is_empty() {
            return other.overlaps(self);
        }
        let widen = |t: u8| if t == 0 { ALL } else if t & NUMBER != 0 { t | INTEGER } else { t };
        let mut common = widen(self.types) & widen(other.types);
        if common & OBJECT != 0 {
            // An object of both has what either requires, which both must take.
            let names = self.required.len() + other.required.len();
            let (mine, others) = (self.positions(names), other.positions(names));
            let object = self.required.iter().chain(&other.required).all(|name| {
                let (a, b) = (self.property_at(mine.as_ref(), name), other.property_at(others.as_ref(), name));
                (a.is_some() || !self.closed) && (b.is_some() || !other.closed) && a.zip(b).is_none_or(|(a, b)| a.overlaps(b))
            });
            if !object {
                common &= !OBJECT;
            }
        }
        common != 0
    }

    /// The JSON form (see [`Fit`]).
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        if self.types != 0 {
            let names = FIT_TYPES.iter().enumerate().filter(|(i, _)| self.types & (1 << i) != 0).map(|(_, n)| string(n)).collect();
            o.put("types", Value::Array(names));
        }
        if !self.values.is_empty() {
            o.put("values", Value::Array(self.values.clone()));
        }
        if !self.required.is_empty() {
            o.put("required", self.required.clone().into());
        }
        if self.closed {
            o.put("closed", Value::Bool(true));
        }
        if !self.properties.is_empty() {
            o.put("properties", Value::Object(self.properties.iter().map(|(k, f)| (k.clone(), f.to_value())).collect()));
        }
        if let Some(items) = &self.items {
            o.put("items", items.to_value());
        }
        Value::Object(o)
    }

    pub(crate) fn read(v: &Value) -> Read<Self> {
        let o = read_object(v)?;
        let type_bit = |v: &Value| -> Read<u8> {
            let name = read_string(v)?;
            FIT_TYPES.iter().position(|n| *n == name).map(|i| 1 << i).ok_or_else(|| crate::model::FieldError::new(format!("must be a JSON type name, got \"{name}\"")))
        };
        let properties = read_field(o, "properties", |v| {
            read_object(v)?.iter().map(|(k, f)| Ok((k.clone(), Self::read(f).map_err(|e| e.at_key(k))?))).collect::<Read<Vec<_>>>()
        })?;
        Ok(Self {
            types: read_field(o, "types", |v| read_array(v, type_bit))?.unwrap_or_default().into_iter().fold(0, |a, b| a | b),
            values: read_field(o, "values", |v| read_array(v, |x| Ok(x.clone())))?.unwrap_or_default(),
            required: read_field(o, "required", |v| read_array(v, read_string))?.unwrap_or_default(),
            closed: read_opt_field(o, "closed", read_bool)?.unwrap_or(false),
            properties: properties.unwrap_or_default(),
            items: read_opt_field(o, "items", Self::read)?.map(Box::new),
        })
    }
}

/// The bits of [`FIT_TYPES`] a value has (an integral number is an integer and a number).
fn type_bits(v: &Value) -> u8 {
    match v {
        Value::Null => 1,
        Value::Bool(_) => 1 << 1,
        Value::Number(n) => NUMBER | if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) { INTEGER } else { 0 },
        Value::String(_) => 1 << 4,
        Value::Array(_) => 1 << 5,
        Value::Object(_) => OBJECT,
    }
}


/// The pairs of `anyOf` branches (`plans`: their plans, with fits) that some value may fit
/// both of and that map it back differently: there the branch that changes the value most
/// decides ([`ArgPlan::apply`]), which may not be the one the model meant. Branches without a
/// fit are left out (they fit any value).
pub(crate) fn ambiguous_branches(plans: &[ArgPlan]) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for (i, a) in plans.iter().enumerate() {
        for (j, b) in plans.iter().enumerate().skip(i + 1) {
            let (Some(fa), Some(fb)) = (a.fit.as_deref(), b.fit.as_deref()) else { continue };
            if fa.overlaps(fb) && !same_mapping(a, b) {
                pairs.push((i, j));
            }
        }
    }
    pairs
}

/// Whether two plans map every value alike (their own fits aside).
fn same_mapping(a: &ArgPlan, b: &ArgPlan) -> bool {
    (a.is_empty() && b.is_empty())
        || (a.unwrap == b.unwrap
            && a.properties == b.properties
            && a.items == b.items
            && a.prefix_items == b.prefix_items
            && a.additional == b.additional
            && a.any_of == b.any_of
            && a.enum_values == b.enum_values
            && a.null_means_absent == b.null_means_absent
            && a.renamed == b.renamed
            && a.reference == b.reference
            && a.defs == b.defs)
}

/// Plans for object properties by name, in name order: a vector kept sorted, searched by
/// bisection (the wasm of a `BTreeMap` is large, and plans are few). Plans are boxed so that an
/// insertion out of order moves small entries (a schema may list thousands of properties in
/// reverse order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PropertyPlans(Vec<(String, Box<ArgPlan>)>);

impl PropertyPlans {
    /// Whether there is no plan.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of plans.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    fn find(&self, name: &str) -> std::result::Result<usize, usize> {
        // Names usually arrive in order (a serialised plan): check the end first.
        match self.0.last() {
            Some((last, _)) if last.as_str() < name => Err(self.0.len()),
            _ => self.0.binary_search_by(|(k, _)| k.as_str().cmp(name)),
        }
    }

    /// The plan of a property.
    pub fn get(&self, name: &str) -> Option<&ArgPlan> {
        self.find(name).ok().map(|i| &*self.0[i].1)
    }

    /// Sets the plan of a property, returning the one it replaces.
    pub fn insert(&mut self, name: String, plan: ArgPlan) -> Option<ArgPlan> {
        match self.find(&name) {
            Ok(i) => Some(std::mem::replace(&mut *self.0[i].1, plan)),
            Err(i) => {
                self.0.insert(i, (name, Box::new(plan)));
                None
            }
        }
    }

    /// `(name, plan)` pairs in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &ArgPlan)> {
        self.0.iter().map(|(k, p)| (k, &**p))
    }

    /// `(name, plan)` pairs in name order, the plans to change.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (&String, &mut ArgPlan)> {
        self.0.iter_mut().map(|(k, p)| (&*k, &mut **p))
    }

    /// The names, in order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(k, _)| k)
    }
}

impl<'a> IntoIterator for &'a PropertyPlans {
    type Item = (&'a String, &'a ArgPlan);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (String, Box<ArgPlan>)>, fn(&'a (String, Box<ArgPlan>)) -> (&'a String, &'a ArgPlan)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, p)| (k, &**p))
    }
}

impl FromIterator<(String, ArgPlan)> for PropertyPlans {
    /// Later plans for a name replace earlier ones.
    fn from_iter<I: IntoIterator<Item = (String, ArgPlan)>>(iter: I) -> Self {
        let mut plans = Self::default();
        for (k, p) in iter {
            plans.insert(k, p);
        }
        plans
    }
}

serialize_via_value!(ArgPlan);

/// The string form a provider sees for an enum value: strings as is, others as JSON text (its
/// numbers as JavaScript spells them).
pub fn enum_string(v: &Value) -> String {
    #[cfg(test)]
    ENUM_STRINGS.with(|c| c.set(c.get() + 1));
    match v {
        Value::String(s) => s.clone(),
        // As JavaScript spells it (`1.0` as "1"): the same string from JSON text as from JS
        // objects, whose numbers JavaScript spelled.
        other => crate::text::to_string_js(other),
    }
}

#[cfg(test)]
thread_local! {
    /// Enum values read as strings ([`enum_string`]), for the tests of what mapping back costs.
    static ENUM_STRINGS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn enum_strings_map_back_at_a_cost_linear_in_the_values() {
        // An array of `n` items whose enum has `n` values (Gemini's strings of integers): each
        // string the model sent is found in the enum, not compared with each of its values.
        let cost = |n: usize| {
            let items = ArgPlan { enum_values: (0..n).map(|i| json!(i)).collect(), ..ArgPlan::default() };
            let plan = ArgPlan { items: Some(Box::new(items)), ..ArgPlan::default() };
            let sent = Value::Array((0..n).rev().map(|i| json!(i.to_string())).chain([json!("none"), json!(1)]).collect());
            ENUM_STRINGS.with(|c| c.set(0));
            let back = plan.try_apply(sent, "t").unwrap();
            let read = ENUM_STRINGS.with(std::cell::Cell::get);
            let want: Vec<Value> = (0..n).rev().map(|i| json!(i)).chain([json!("none"), json!(1)]).collect();
            assert_eq!(back, Value::Array(want));
            read
        };
        let (few, many) = (cost(200), cost(800));
        assert!(many <= 5 * few, "enum values read as strings for 200 values and items: {few}, for 800: {many}");
        // Of values with the same string form (`1` and `"1"`), the first.
        let plan = ArgPlan { enum_values: (0..20).map(|i| json!(i)).chain([json!("1"), json!("x"), json!("x")]).collect(), ..ArgPlan::default() };
        assert_eq!(plan.apply(json!("1")), json!(1));
        assert_eq!(plan.apply(json!("x")), json!("x"));
        assert_eq!(plan.apply(json!("19")), json!(19));
        assert_eq!(plan.apply(json!("20")), json!("20"));
        assert_eq!(plan.apply(json!(19)), json!(19));
    }

    #[test]
    fn enums_nulls_and_unwrap() {
        let mut inner = ArgPlan { enum_values: vec![json!(2), json!(8), json!(true)], ..ArgPlan::default() };
        let mut root = ArgPlan { null_means_absent: vec!["opt".into()], ..ArgPlan::default() };
        root.set_property("base", inner.clone());
        inner.enum_values = vec![json!(1)];
        root.set_property("list", ArgPlan { items: Some(Box::new(inner)), ..ArgPlan::default() });
        let out = root.apply(json!({"base":"8","opt":null,"keep":null,"list":["1","x"]}));
        assert_eq!(out, json!({"base":8,"keep":null,"list":[1,"x"]}));
        let wrapped = ArgPlan { unwrap: Some("input".into()), ..ArgPlan::default() };
        assert_eq!(wrapped.apply(json!({"input":"q"})), json!("q"));
        // Keys other than the wrapper's are refused, not dropped: beside it, or instead of it.
        assert_eq!(wrapped.try_apply(json!({"input":{"days":3}}), "t").unwrap(), json!({"days":3}));
        assert_eq!(wrapped.try_apply(json!({}), "t").unwrap(), Value::Null);
        let e = wrapped.try_apply(json!({"input":{"days":3},"dryRun":true}), "t").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArguments);
        assert!(e.message.contains(r#"got "dryRun" beside it"#), "{}", e.message);
        let e = wrapped.try_apply(json!({"days":30}), "t").unwrap_err();
        assert!(e.message.contains(r#"go under "input""#) && e.message.contains(r#"got "days" without it"#), "{}", e.message);
        let many: serde_json::Map<String, Value> = (0..8).map(|i| (format!("k{i}"), json!(i))).collect();
        let e = wrapped.try_apply(Value::Object(many), "t").unwrap_err();
        assert!(e.message.contains(r#""k4", ... without it"#), "{}", e.message);
    }

    /// A union of objects sharing optional fields (strict mode made them all nullable): the
    /// branch that accounts for most of the value maps it, not the first that touches it.
    #[test]
    fn the_any_of_branch_that_changes_most_maps_the_value() {
        let a = ArgPlan { null_means_absent: vec!["m".into(), "params".into()], ..ArgPlan::default() };
        let mut b = ArgPlan { null_means_absent: vec!["m".into(), "params".into()], ..ArgPlan::default() };
        b.set_property("params", ArgPlan { null_means_absent: vec!["team".into()], ..ArgPlan::default() });
        let mut sel = ArgPlan { any_of: vec![a, b], ..ArgPlan::default() };
        let mut root = ArgPlan::default();
        root.set_property("sel", sel.clone());
        assert_eq!(root.apply(json!({"sel":{"op":"b","params":{"team":null},"m":null}})), json!({"sel":{"op":"b","params":{}}}));
        // A value only the first branch touches, and ties, stay with the first branch.
        assert_eq!(root.apply(json!({"sel":{"op":"a","params":{"id":"x"},"m":null}})), json!({"sel":{"op":"a","params":{"id":"x"}}}));
        sel.any_of.push(ArgPlan { enum_values: vec![json!(1)], ..ArgPlan::default() });
        assert_eq!(sel.apply(json!("1")), json!(1));
        assert_eq!(sel.apply(json!("2")), json!("2"));
        // Two branches that change the value as much, differently: the first wins.
        let absent = |name: &str| ArgPlan { null_means_absent: vec![name.into()], ..ArgPlan::default() };
        let tie = ArgPlan { any_of: vec![absent("a"), absent("b")], ..ArgPlan::default() };
        assert_eq!(tie.apply(json!({"a": null, "b": null})), json!({"b": null}));
        let tie = ArgPlan { any_of: vec![absent("b"), absent("a")], ..ArgPlan::default() };
        assert_eq!(tie.apply(json!({"a": null, "b": null})), json!({"a": null}));
    }

    fn branch(schema: Value, plan: ArgPlan) -> ArgPlan {
        ArgPlan { fit: Some(Box::new(Fit::of(&schema))), ..plan }
    }

    /// A branch's plan maps only values of its branch: `{kind: "a", x: null}` is a value of
    /// branch `a` (its `x` required and nullable), not of branch `b` (whose optional `x` strict
    /// mode made nullable), though `b`'s plan would change it more.
    #[test]
    fn the_any_of_branch_the_value_fits_maps_it() {
        let strict = |kind: &str| json!({"type":"object","properties":{"kind":{"const":kind},"x":{"type":["string","null"]}},"required":["kind","x"],"additionalProperties":false});
        let a = branch(strict("a"), ArgPlan::default());
        let b = branch(strict("b"), ArgPlan { null_means_absent: vec!["x".into()], ..ArgPlan::default() });
        let mut root = ArgPlan::default();
        root.set_property("u", ArgPlan { any_of: vec![a, b], ..ArgPlan::default() });
        assert_eq!(root.apply(json!({"u":{"kind":"a","x":null}})), json!({"u":{"kind":"a","x":null}}));
        assert_eq!(root.apply(json!({"u":{"kind":"b","x":null}})), json!({"u":{"kind":"b"}}));
        // A value that fits no branch is left as it is.
        assert_eq!(root.apply(json!({"u":{"kind":"c","x":null}})), json!({"u":{"kind":"c","x":null}}));
        // Gemini: the string "1" of variant `text` is no enum value of variant `num`.
        let level = |values: Value| json!({"type":"object","properties":{"kind":{"type":"string","enum":values},"level":{"type":"string","enum":["1","2","3"]}},"required":["kind","level"]});
        let mut num = ArgPlan::default();
        num.set_property("level", ArgPlan { enum_values: vec![json!(1), json!(2), json!(3)], ..ArgPlan::default() });
        let u = ArgPlan { any_of: vec![branch(level(json!(["text"])), ArgPlan::default()), branch(level(json!(["num"])), num)], ..ArgPlan::default() };
        assert_eq!(u.apply(json!({"kind":"text","level":"1"})), json!({"kind":"text","level":"1"}));
        assert_eq!(u.apply(json!({"kind":"num","level":"1"})), json!({"kind":"num","level":1}));
        // Fits read what the model sent, before the node's own plans map it.
        let mut own = ArgPlan { null_means_absent: vec!["kind".into()], ..u.clone() };
        own.set_property("other", ArgPlan { enum_values: vec![json!(5)], ..ArgPlan::default() });
        assert_eq!(own.apply(json!({"kind":"num","level":"2","other":"5"})), json!({"kind":"num","level":2,"other":5}));
    }

    #[test]
    fn fits_read_types_values_and_properties() {
        let fit = Fit::of(&json!({"type":["integer","null"]}));
        assert!(fit.admits(&json!(3)) && fit.admits(&json!(3.0)) && fit.admits(&json!(null)));
        assert!(!fit.admits(&json!(3.5)) && !fit.admits(&json!("3")));
        let fit = Fit::of(&json!({"type":"number","enum":[1,2]}));
        assert!(fit.admits(&json!(1.0)) && !fit.admits(&json!(3)));
        // Gemini's `nullable`, and an enum of it.
        let fit = Fit::of(&json!({"type":"string","enum":["a"],"nullable":true}));
        assert!(fit.admits(&json!(null)) && fit.admits(&json!("a")) && !fit.admits(&json!("b")));
        // A closed object takes its properties only; an open one any other.
        let closed = Fit::of(&json!({"type":"object","properties":{"a":{},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}));
        assert!(closed.admits(&json!({"a":1,"b":"x"})));
        assert!(!closed.admits(&json!({"a":1,"c":2})) && !closed.admits(&json!({"b":"x"})) && !closed.admits(&json!({"a":1,"b":2})));
        let open = Fit::of(&json!({"type":"object","properties":{"a":{},"b":{"type":"string"}},"required":["a"]}));
        assert!(open.admits(&json!({"a":1,"c":2})));
        assert_eq!(open.properties.len(), 1, "the open object's `a` says nothing");
        // Items, an anyOf's types; a reference takes anything.
        let fit = Fit::of(&json!({"type":"array","items":{"anyOf":[{"type":"string"},{"type":"null"}]}}));
        assert!(fit.admits(&json!(["a",null])) && !fit.admits(&json!([1])));
        assert!(Fit::of(&json!({"$ref":"#/$defs/x"})).admits(&json!(1)));
        // The JSON form round-trips.
        let v = closed.to_value();
        assert_eq!(v, json!({"types":["object"],"required":["a"],"closed":true,"properties":{"a":{},"b":{"types":["string"]}}}));
        assert_eq!(Fit::read(&v).unwrap(), closed);
        let e = ArgPlan::from_value(&json!({"anyOf":[{"fit":{"types":["text"]}}]})).unwrap_err();
        assert_eq!(e.message, r#"invalid argument plan: anyOf[0].fit.types[0] must be a JSON type name, got "text""#);
    }

    /// An object of thousands of keys is checked against a fit of thousands of properties, and
    /// two such fits for a value they both take, in linear time: each name is looked up among
    /// the properties by hash, where scanning them for each took 16 times the work for 4 times
    /// the properties (17 s for 32,000 keys in `prepareArguments`). The answers are as
    /// before, few properties or many.
    #[test]
    fn fits_of_many_properties_are_checked_in_linear_time() {
        let object = |n: usize, prefix: &str, ty: &str, closed: bool| {
            let props: Map<String, Value> = (0..n).map(|i| (format!("{prefix}{i}"), json!({"type": ty}))).collect();
            let required: Vec<String> = (0..n).rev().map(|i| format!("{prefix}{i}")).collect();
            Fit::of(&json!({"type": "object", "properties": props, "required": required, "additionalProperties": !closed}))
        };
        let value = |n: usize, v: Value| Value::Object((0..n).map(|i| (format!("k{i}"), v.clone())).collect());
        let run = |n: usize| {
            let before = crate::model::NAME_STEPS.with(|s| s.get());
            let (fit, open) = (object(n, "k", "integer", true), object(n, "k", "integer", false));
            assert!(fit.admits(&value(n, json!(1))), "{n}");
            assert_eq!(fit.admits(&value(n, json!("1"))), n == 0, "{n}");
            let mut extra = value(n, json!(1));
            extra.as_object_mut().unwrap().insert("z".owned(), json!(1));
            assert!(!fit.admits(&extra) && open.admits(&extra), "{n}");
            // Both require the other's names: a value of both has them all, of both types.
            let (strings, others) = (object(n, "k", "string", true), object(n, "j", "integer", false));
            assert!(fit.overlaps(&open) && fit.overlaps(&fit) && open.overlaps(&others), "{n}");
            assert_eq!(fit.overlaps(&strings), n == 0, "{n}");
            assert_eq!(fit.overlaps(&others), n == 0, "{n}: the closed one has no `j`");
            crate::model::NAME_STEPS.with(|s| s.get()) - before
        };
        let (small, large) = (run(2_000), run(8_000));
        assert!(large <= 5 * small, "{small} then {large} steps for 4 times the properties");
        for n in [0, 3, crate::model::NameSet::FEW, crate::model::NameSet::FEW + 1, 40] {
            run(n);
        }
    }

    /// Branches some value fits both of, that map it back differently, are told apart from
    /// those that a type, a value or a required property separates.
    #[test]
    fn ambiguous_branches_are_found() {
        let obj = |props: Value, required: Value| json!({"type":"object","properties":props,"required":required,"additionalProperties":false});
        let absent = |name: &str| ArgPlan { null_means_absent: vec![name.into()], ..ArgPlan::default() };
        // `x` required and nullable in one, optional (made nullable) in the other.
        let x = json!({"x":{"type":["string","null"]}});
        let plans = [branch(obj(x.clone(), json!(["x"])), ArgPlan::default()), branch(obj(x.clone(), json!(["x"])), absent("x"))];
        assert_eq!(ambiguous_branches(&plans), [(0, 1)]);
        // A const apart, another key, or another type: none.
        let kind = |k: &str| json!({"kind":{"const":k},"x":{"type":["string","null"]}});
        let plans = [branch(obj(kind("a"), json!(["kind","x"])), ArgPlan::default()), branch(obj(kind("b"), json!(["kind","x"])), absent("x"))];
        assert!(ambiguous_branches(&plans).is_empty());
        let plans = [branch(obj(x.clone(), json!(["x"])), ArgPlan::default()), branch(obj(json!({"x":{"type":["string","null"]},"y":{"type":"integer"}}), json!(["x","y"])), absent("x"))];
        assert!(ambiguous_branches(&plans).is_empty());
        let plans = [branch(json!({"type":"string"}), ArgPlan::default()), branch(json!({"type":"object"}), absent("x"))];
        assert!(ambiguous_branches(&plans).is_empty());
        // Plans that map alike.
        let plans = [branch(obj(x.clone(), json!(["x"])), absent("x")), branch(obj(x, json!(["x"])), absent("x"))];
        assert!(ambiguous_branches(&plans).is_empty());
    }

    #[test]
    fn property_plans_stay_sorted_and_unique() {
        let leaf = |n: i64| ArgPlan { enum_values: vec![json!(n)], ..ArgPlan::default() };
        let mut props = PropertyPlans::default();
        for (i, name) in ["m", "c", "x", "a", "m", "b", "z"].into_iter().enumerate() {
            let replaced = props.insert(name.into(), leaf(i as i64));
            assert_eq!(replaced.is_some(), i == 4, "{name}");
        }
        assert_eq!(props.keys().map(String::as_str).collect::<Vec<_>>(), ["a", "b", "c", "m", "x", "z"]);
        assert_eq!(props.len(), 6);
        assert_eq!(props.get("m"), Some(&leaf(4)));
        assert_eq!(props.get("n"), None);
        assert_eq!((&props).into_iter().count(), props.iter().count());
        let collected: PropertyPlans = [("b".to_string(), leaf(1)), ("a".to_string(), leaf(2)), ("b".to_string(), leaf(3))].into_iter().collect();
        assert_eq!(collected.iter().map(|(k, p)| (k.as_str(), p)).collect::<Vec<_>>(), [("a", &leaf(2)), ("b", &leaf(3))]);
        // Equality does not depend on insertion order.
        let mut other = PropertyPlans::default();
        for name in ["z", "x", "m", "c", "b", "a"] {
            other.insert(name.into(), props.get(name).unwrap().clone());
        }
        assert_eq!(other, props);
    }

    #[test]
    fn plans_round_trip_through_json() {
        let mut p = ArgPlan::default();
        p.set_property("a", ArgPlan { enum_values: vec![json!(1)], ..ArgPlan::default() });
        let back = ArgPlan::from_value(&p.to_value()).unwrap();
        assert_eq!(back, p);
        assert!(ArgPlan::default().is_empty());
    }

    fn full_plan() -> ArgPlan {
        let leaf = ArgPlan { enum_values: vec![json!(1), json!("x"), json!(null)], ..ArgPlan::default() };
        let mut root = ArgPlan {
            unwrap: Some("input".into()),
            items: Some(Box::new(leaf.clone())),
            any_of: vec![leaf.clone(), ArgPlan { null_means_absent: vec!["n".into()], ..ArgPlan::default() }],
            enum_values: vec![json!(2.5), json!({"k": [true]})],
            null_means_absent: vec!["a".into(), "b".into()],
            ..ArgPlan::default()
        };
        root.set_property("zeta", leaf.clone());
        root.set_property("alpha", ArgPlan { items: Some(Box::new(leaf)), ..ArgPlan::default() });
        root
    }

    #[test]
    fn json_form_is_exact_and_round_trips() {
        let p = full_plan();
        let v = p.to_value();
        // Key order: the field order; properties sorted by name; empty fields absent.
        let text = serde_json::to_string(&v).unwrap();
        assert_eq!(
            text,
            concat!(
                r#"{"unwrap":"input","properties":{"alpha":{"items":{"enumValues":[1,"x",null]}},"zeta":{"enumValues":[1,"x",null]}},"#,
                r#""items":{"enumValues":[1,"x",null]},"anyOf":[{"enumValues":[1,"x",null]},{"nullMeansAbsent":["n"]}],"#,
                r#""enumValues":[2.5,{"k":[true]}],"nullMeansAbsent":["a","b"]}"#
            )
        );
        assert_eq!(serde_json::to_string(&p).unwrap(), text, "Serialize gives the same JSON");
        assert_eq!(ArgPlan::from_value(&v).unwrap(), p);
        assert_eq!(ArgPlan::default().to_value(), json!({}));
    }

    /// Renamed keys go back where they were, after the plans the provider's names key (here a
    /// strict-mode null and an enum string); a server key the model sent beside its renamed
    /// form gives way; the JSON form keeps the schema's order and reads back.
    /// A recursive union whose branches nothing in the value tells apart (strict mode's
    /// filter tree: two node shapes sharing their keys, one with an optional key of its own):
    /// each level's branches map the same children, once, not once per branch (which doubled
    /// the work per level: 22 levels took seconds, a few more minutes). Past the bound on that
    /// work, `LIMIT_EXCEEDED`.
    #[test]
    fn an_ambiguous_recursive_union_is_decided_in_linear_time() {
        let node = |a: &str| {
            let schema = json!({"type":"object","properties":{"a":{"type":[a,"null"]},"children":{"type":["array","null"],"items":{"$ref":"#/$defs/node"}}},"required":["a","children"]});
            let own = if a == "integer" { vec!["a".into(), "children".into(), "b".into()] } else { vec!["a".into(), "children".into()] };
            let mut plan = ArgPlan { null_means_absent: own, ..ArgPlan::default() };
            let items = ArgPlan { reference: Some("node".into()), ..ArgPlan::default() };
            plan.set_property("children", ArgPlan { items: Some(Box::new(items)), ..ArgPlan::default() });
            branch(schema, plan)
        };
        let mut defs = PropertyPlans::default();
        defs.insert("node".into(), ArgPlan { any_of: vec![node("string"), node("integer")], ..ArgPlan::default() });
        let mut root = ArgPlan { defs: Some(Box::new(defs)), ..ArgPlan::default() };
        root.set_property("filter", ArgPlan { reference: Some("node".into()), ..ArgPlan::default() });
        let tree = |depth: usize, pad: usize| {
            let (mut sent, mut back) = (json!({"a": null, "children": null}), json!({}));
            for _ in 0..depth {
                sent = json!({"a": null, "children": [sent], "pad": vec![0; pad]});
                back = json!({"children": [back], "pad": vec![0; pad]});
            }
            (json!({"filter": sent}), json!({"filter": back}))
        };
        let (sent, back) = tree(60, 0);
        let ((mapped, exceeded), work) = root.run(sent.clone());
        assert_eq!((mapped, exceeded), (back, None));
        // The steps: each level hashes, keeps and compares its subtree (a few values a level), so
        // at most the square of the depth, not 2^60.
        assert!(work < 200_000, "{work}");
        assert!(root.try_apply(sent, "query").is_ok());
        // Each level's branches look at the whole of its subtree: big levels, deep, are bounded.
        let (sent, _) = tree(60, 1_000);
        let e = root.try_apply(sent, "query").unwrap_err();
        assert_eq!(e.code, ErrorCode::LimitExceeded);
        assert!(e.message.contains("\"query\""), "{e}");
    }

    /// Branches that map alike (strict mode's plans of two object shapes that differ only by a
    /// `maxLength`): nothing to decide, the value is mapped once, however large, with no work
    /// towards the bound; a branch that maps otherwise is still decided against them.
    #[test]
    fn branches_that_map_alike_map_a_large_value_once() {
        let shape = |max: u64| {
            let schema = json!({"type":"object","properties":{"title":{"type":["string","null"],"maxLength":max},"rows":{"type":"array","items":{"type":"object"}}},"required":["title","rows"]});
            let mut plan = ArgPlan { null_means_absent: vec!["title".into()], ..ArgPlan::default() };
            let row = ArgPlan { null_means_absent: vec!["note".into()], ..ArgPlan::default() };
            plan.set_property("rows", ArgPlan { items: Some(Box::new(row)), ..ArgPlan::default() });
            branch(schema, plan)
        };
        let union = ArgPlan { any_of: vec![shape(50), shape(200)], ..ArgPlan::default() };
        let mut root = ArgPlan::default();
        root.set_property("doc", union.clone());
        let rows = |n: usize, note: Value| (0..n).map(|i| json!({"cells":[{"v":format!("r{i}"),"fmt":null},{"v":"x","fmt":"bold"}],"note":note})).collect::<Vec<_>>();
        let (sent, back) = (json!({"doc":{"title":null,"rows":rows(20_000, Value::Null)}}), json!({"doc":{"rows":rows(20_000, json!("-"))}}));
        let mut back = back;
        for row in back["doc"]["rows"].as_array_mut().unwrap() {
            row.as_object_mut().unwrap().remove("note");
        }
        let ((mapped, exceeded), work) = root.run(sent.clone());
        assert_eq!((mapped, exceeded, work), (back.clone(), None, 0));
        assert_eq!(root.try_apply(sent.clone(), "write_table").unwrap(), back);
        // A third branch of its own, which the value fits as well: decided as ever, work counted.
        let other = branch(json!({"type":"object"}), ArgPlan { null_means_absent: vec!["extra".into()], ..ArgPlan::default() });
        let mut three = union;
        three.any_of.push(other);
        root.set_property("doc", three);
        let small = json!({"doc":{"title":null,"rows":rows(2, Value::Null)}});
        let ((mapped, exceeded), work) = root.run(small);
        assert_eq!((mapped["doc"]["rows"][0].get("note"), exceeded), (None, None));
        assert!(work > 0);
        assert_eq!(root.try_apply(sent, "write_table").unwrap_err().code, ErrorCode::LimitExceeded, "deciding that union is bounded");
    }

    /// Arguments are mapped back to 128 levels; a value deeper that the plan still has
    /// something to do with is `LIMIT_EXCEEDED`, not given to the server with the provider's
    /// keys (or strict mode's nulls) left in it.
    #[test]
    fn a_value_deeper_than_the_plans_map_is_limit_exceeded() {
        let mut root = ArgPlan { renamed: vec![("dollar_v".into(), "$v".into())], ..ArgPlan::default() };
        root.set_property("kid", ArgPlan { reference: Some("#".into()), ..ArgPlan::default() });
        let nest = |depth: usize, key: &str| (0..depth).fold(json!({key: 1}), |v, _| json!({"kid": v}));
        assert_eq!(root.try_apply(nest(128, "dollar_v"), "t").unwrap(), nest(128, "$v"));
        let e = root.try_apply(nest(129, "dollar_v"), "t").unwrap_err();
        assert_eq!(e.code, ErrorCode::LimitExceeded);
        assert!(e.message.contains("deeper than 128 levels"), "{e}");
        // Deeper where no plan reaches is no matter.
        let mut flat = ArgPlan::default();
        flat.set_property("a", ArgPlan { enum_values: vec![json!(1)], ..ArgPlan::default() });
        let mut deep = nest(300, "x");
        deep["a"] = json!("1");
        assert_eq!(flat.try_apply(deep, "t").unwrap()["a"], json!(1));
    }

    #[test]
    fn renamed_keys_map_back_in_place() {
        let mut p = ArgPlan { renamed: vec![("dollar_top".into(), "$top".into()), ("a_b".into(), "a b".into())], null_means_absent: vec!["a_b".into()], ..ArgPlan::default() };
        p.set_property("dollar_top", ArgPlan { enum_values: vec![json!(10)], ..ArgPlan::default() });
        assert!(!ArgPlan { renamed: p.renamed.clone(), ..ArgPlan::default() }.is_empty());
        let out = p.apply(json!({"x": 1, "dollar_top": "10", "a_b": null, "y": 2}));
        assert_eq!(serde_json::to_string(&out).unwrap(), r#"{"x":1,"$top":10,"y":2}"#);
        let out = p.apply(json!({"a_b": "v", "x": 1}));
        assert_eq!(serde_json::to_string(&out).unwrap(), r#"{"a b":"v","x":1}"#);
        // The server's own key sent too, before or after: the renamed one's value is kept.
        assert_eq!(p.apply(json!({"$top": "lit", "dollar_top": "10"})), json!({"$top": 10}));
        assert_eq!(p.apply(json!({"dollar_top": "10", "$top": "lit"})), json!({"$top": 10}));
        assert_eq!(p.apply(json!({"$top": "lit"})), json!({"$top": "lit"}), "alone, it is what the model sent");
        // Not an object: unchanged.
        assert_eq!(p.apply(json!(["dollar_top"])), json!(["dollar_top"]));
        let v = p.to_value();
        assert_eq!(serde_json::to_string(&v).unwrap(), r#"{"properties":{"dollar_top":{"enumValues":[10]}},"nullMeansAbsent":["a_b"],"renamed":{"dollar_top":"$top","a_b":"a b"}}"#);
        assert_eq!(ArgPlan::from_value(&v).unwrap(), p);
        let e = ArgPlan::from_value(&json!({"properties": {"o": {"renamed": {"k": 1}}}})).unwrap_err();
        assert_eq!(e.message, "invalid argument plan: properties.o.renamed.k must be a string, got number");
        let e = ArgPlan::from_value(&json!({"renamed": ["k"]})).unwrap_err();
        assert_eq!(e.message, "invalid argument plan: renamed must be an object, got array");
    }

    #[test]
    fn reading_is_lenient_where_serde_was_and_strict_on_types() {
        // Unknown keys ignored, nulls for optional fields, unsorted properties.
        let p = ArgPlan::from_value(&json!({"unwrap":null,"items":null,"extra":1,"properties":{"b":{},"a":{"unwrap":"x"}}})).unwrap();
        assert_eq!(p.unwrap, None);
        assert_eq!(p.properties.keys().collect::<Vec<_>>(), ["a", "b"]);
        for (bad, field) in [
            (json!([]), "the value must be an object, got array"),
            (json!({"unwrap": 1}), "unwrap must be a string, got number"),
            (json!({"properties": null}), "properties must be an object, got null"),
            (json!({"properties": {"a": {"anyOf": [{}, {"enumValues": "x"}]}}}), "properties.a.anyOf[1].enumValues must be an array, got string"),
            (json!({"nullMeansAbsent": ["a", 2]}), "nullMeansAbsent[1] must be a string, got number"),
            (json!({"items": {"items": 3}}), "items.items must be an object, got number"),
        ] {
            let e = ArgPlan::from_value(&bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput);
            assert_eq!(e.message, format!("invalid argument plan: {field}"));
        }
    }
}
